/**
 * paper_execution_v1: the one disclosed, deterministic cost model of every paper fill
 * (contract §1, supplement 1.0 ExecutionModel and 3.4). Pure: callers pass prices and sizes.
 */
import { Decimal } from './money.js';

export const EXECUTION_VERSION = 'paper_execution_v1';
export const FUNDING_MODE = 'not_modeled';

/** Spot taker fee on notional. */
export const SPOT_TAKER_FEE_BPS = 10;
/** Futures taker fee on notional (open and close). */
export const FUTURES_TAKER_FEE_BPS = 5;
/** Spot slippage grows by this many bps per 10,000 mUSD of notional ... */
export const SPOT_SLIPPAGE_BPS_PER_10K = 1;
/** ... up to this cap. */
export const SPOT_SLIPPAGE_CAP_BPS = 50;
/** PM taker fee = PM_FEE_SCALE_BPS × p × (1 − p): 180 bps (1.8 %) at p = 0.5, → 0 at the extremes. */
export const PM_FEE_SCALE_BPS = 720;

/** Full modeled spot spread by market-cap rank tier (a market fill pays half). */
export const SPOT_SPREAD_TIERS: readonly { maxRank: number; spreadBps: number }[] = [
  { maxRank: 10, spreadBps: 2 },
  { maxRank: 50, spreadBps: 6 },
  { maxRank: 200, spreadBps: 15 },
];
export const SPOT_SPREAD_UNRANKED_BPS = 30;
/**
 * The smallest trade notional (mUSD): a spot order and the closed part of a futures position
 * (and what a partial close leaves open) must be worth at least this much. Smaller "trades"
 * rounded to nothing on the wire (quantity, notional and fee all 0) yet counted as decided trades.
 */
export const MIN_TRADE_NOTIONAL_MUSD = 0.01;

export const EXECUTION_ASSUMPTIONS: readonly string[] = [
  'taker fee on notional for every spot and futures fill',
  'spot market orders fill at mid plus half the modeled spread plus size-scaled slippage (minus for sells)',
  'a marketable spot limit (a buy at or above the executable buy price of a market order now, a sell at or below the executable sell price) and a stop-limit triggered in that state execute at once as a taker at the market execution price (spread, slippage, fee), never worse than the limit',
  'a non-marketable limit or stop-limit rests and fills at its limit price with the fee only, when the market trades through it',
  'no partial fills',
  `a spot order, the closed part of a futures position and what a partial close leaves open are each worth at least ${MIN_TRADE_NOTIONAL_MUSD} mUSD`,
  'funding is not modeled: no funding is charged or paid',
  'order-book depth, latency and market impact are not modeled',
  'the model is not a fill guarantee',
];

export interface ExecutionModel {
  version: string;
  feeBps: number;
  spreadBps: number;
  slippageBps: number;
  fillModel: string | null;
  estimatedFeeMusd: number;
  estimatedSlippageMusd: number;
  fundingMode: string;
  assumptions: string[];
}

export function spotSpreadBps(rank: number | null): number {
  if (rank === null) return SPOT_SPREAD_UNRANKED_BPS;
  return SPOT_SPREAD_TIERS.find((t) => rank <= t.maxRank)?.spreadBps ?? SPOT_SPREAD_UNRANKED_BPS;
}

export function spotSlippageBps(notionalUsd: Decimal): number {
  const bps = notionalUsd.div(10_000).times(SPOT_SLIPPAGE_BPS_PER_10K);
  return Decimal.min(bps, SPOT_SLIPPAGE_CAP_BPS).toDecimalPlaces(4).toNumber();
}

export interface SpotFill {
  executionPrice: Decimal;
  notional: Decimal;
  fee: Decimal;
  /** Cost of spread and slippage against the mid, in mUSD. */
  slippageCost: Decimal;
  model: ExecutionModel;
}

/** A spot market fill: buy above mid, sell below, by half the spread plus slippage; fee on notional. */
export function spotMarketFill(side: 'buy' | 'sell', mid: Decimal, quantity: Decimal, rank: number | null): SpotFill {
  const spreadBps = spotSpreadBps(rank);
  const slippageBps = spotSlippageBps(mid.times(quantity));
  const moveBps = new Decimal(spreadBps).div(2).plus(slippageBps);
  const direction = side === 'buy' ? 1 : -1;
  const executionPrice = mid.times(new Decimal(1).plus(moveBps.div(10_000).times(direction)));
  const notional = executionPrice.times(quantity);
  const fee = notional.times(SPOT_TAKER_FEE_BPS).div(10_000);
  const slippageCost = executionPrice.minus(mid).abs().times(quantity);
  return {
    executionPrice,
    notional,
    fee,
    slippageCost,
    model: executionModel({ feeBps: SPOT_TAKER_FEE_BPS, spreadBps, slippageBps, fee, slippageCost }),
  };
}

/** A spot limit/stop-limit fill at its limit price: fee only. */
export function spotLimitFill(limitPrice: Decimal, quantity: Decimal): { notional: Decimal; fee: Decimal } {
  const notional = limitPrice.times(quantity);
  return { notional, fee: notional.times(SPOT_TAKER_FEE_BPS).div(10_000) };
}

/** The futures taker fee on a notional (plain mark fill: no spread, no slippage). */
export function futuresFee(notional: Decimal): Decimal {
  return notional.times(FUTURES_TAKER_FEE_BPS).div(10_000);
}

export function futuresExecutionModel(fee: Decimal): ExecutionModel {
  return executionModel({ feeBps: FUTURES_TAKER_FEE_BPS, spreadBps: 0, slippageBps: 0, fee, slippageCost: new Decimal(0) });
}

/** PM taker fee rate in bps at a probability p in [0, 1]. */
export function pmFeeBps(p: number): number {
  return Math.round(PM_FEE_SCALE_BPS * p * (1 - p) * 100) / 100;
}

export function executionModel(parts: {
  feeBps: number;
  spreadBps: number;
  slippageBps: number;
  fee: Decimal;
  slippageCost: Decimal;
  fillModel?: string | null;
}): ExecutionModel {
  return {
    version: EXECUTION_VERSION,
    feeBps: parts.feeBps,
    spreadBps: parts.spreadBps,
    slippageBps: parts.slippageBps,
    fillModel: parts.fillModel ?? null,
    estimatedFeeMusd: parts.fee.toDecimalPlaces(8).toNumber(),
    estimatedSlippageMusd: parts.slippageCost.toDecimalPlaces(8).toNumber(),
    fundingMode: FUNDING_MODE,
    assumptions: [...EXECUTION_ASSUMPTIONS],
  };
}
