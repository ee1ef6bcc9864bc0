/** Response schemas of the spot venue (quote, order, cancel) and the execution model every venue reports. */
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../schemas.js';
import { Bool, Freshness, Int, Num, Observation, Str } from './common.js';

/** How a paper fill was (or would be) priced: fees, spread, slippage, assumptions. */
export const ExecutionModel = Type.Object({
  version: Str(),
  feeBps: Num(),
  spreadBps: Num(),
  slippageBps: Num(),
  fillModel: Nullable(Str()),
  estimatedFeeMusd: Num(),
  estimatedSlippageMusd: Num(),
  fundingMode: Str(),
  assumptions: Type.Array(Str()),
});

const Side = StringEnum(['buy', 'sell'] as const);

export const SpotQuoteResponse = Type.Object({
  eligible: Bool(),
  blockReasons: Type.Array(StringEnum(['price_unavailable', 'insufficient_usdt_balance', 'insufficient_coin_balance', 'wallet_not_found', 'below_min_notional'] as const)),
  coin: Type.Object({ ucid: Str(), symbol: Str(), name: Str() }),
  side: Side,
  quantity: Num(),
  orderType: Type.Literal('market'),
  executionPrice: Nullable(Num()),
  estimatedCostMusd: Nullable(Num()),
  estimatedFeeMusd: Nullable(Num()),
  executionModel: ExecutionModel,
  available: Type.Object({ usdtAvailableMusd: Num(), coinAvailable: Num() }),
  freshness: Freshness,
  priceTiming: Type.Object({
    rowWrittenAt: Nullable(DateTime),
    sourceObservedAt: Nullable(DateTime),
    sourceAgeSeconds: Nullable(Int()),
    writeLagSeconds: Nullable(Int()),
    coverage: StringEnum(['recorded', 'no_row'] as const),
    basis: Str(),
  }),
  asOf: DateTime,
  observation: Observation,
});

/** Market fills carry orderId and the fill summary, marketable limit/stop fills tradeId; resting limit/stop orders carry restingOrderId and what they froze. */
export const SpotOrderResponse = Type.Object({
  message: Str(),
  orderId: Type.Optional(Int({ description: 'market fills: the trade id' })),
  tradeId: Type.Optional(
    Int({ description: 'a marketable limit or stop-limit that filled at once: its trade id in /api/agent/trades (nothing rests: not an id to cancel with)' }),
  ),
  restingOrderId: Type.Optional(Int({ description: 'limit/stop: the id to cancel with' })),
  summary: Type.Object({
    side: Side,
    quantity: Num(),
    coinId: Str(),
    executionPrice: Type.Optional(Num()),
    totalCost: Type.Optional(Num()),
    pnl: Type.Optional(Nullable(Num())),
    feeUsd: Type.Optional(Num()),
    slippageUsd: Type.Optional(Num()),
    executionModel: Type.Optional(Nullable(ExecutionModel)),
    executionModelStatus: Type.Optional(Str({ description: 'replays: historical_parameters_not_retained' })),
    executionVersion: Type.Optional(Str()),
    orderType: Type.Optional(StringEnum(['limit', 'stop'] as const)),
    limitPrice: Type.Optional(Num()),
    stopPrice: Type.Optional(Num()),
    triggered: Type.Optional(Bool()),
    marketable: Type.Optional(Type.Boolean({ description: 'a limit or stop-limit that was marketable: it filled at once as a taker at the market execution price' })),
    frozenUsd: Type.Optional(Num()),
    frozenCoin: Type.Optional(Num()),
  }),
  idempotentReplay: Type.Optional(Bool()),
});
