import { MINUTES_PER_DAY } from './params.js';
import { regimeCode, regimeName, stationaryRegime, type Regime } from './regimes.js';
import { drawHash, hashToUnit, streamKeyFrom } from './random.js';
import { bullishShare } from './sentiment-model.js';
import type { SimUniverse } from './universe.js';

/** One coin at the start of a minute. Plain JSON; store it losslessly to resume exactly. */
export interface CoinSimState {
  coinId: string;
  price: number;
  regime: Regime;
  /** Rolling 24 h USD volume. */
  volume24hUsd: number;
  /** Votes cast since 00:00 UTC of the state's minute (integers). */
  bullishVotes: number;
  bearishVotes: number;
  /** Moving average of standardised returns; drives the bullish share of new votes. */
  momentum: number;
}

/** The whole simulated market at the instant minuteIndex * 60 000 ms. */
export interface MarketState {
  version: 1;
  minuteIndex: number;
  marketRegime: Regime;
  coins: CoinSimState[];
}

/** Column form of a MarketState, mutated in place by the per-minute step. */
export interface SimArrays {
  minuteIndex: number;
  marketRegime: number;
  price: Float64Array;
  regime: Uint8Array;
  volume: Float64Array;
  bullish: Float64Array;
  bearish: Float64Array;
  momentum: Float64Array;
}

function emptyArrays(n: number, minuteIndex: number): SimArrays {
  return {
    minuteIndex,
    marketRegime: 0,
    price: new Float64Array(n),
    regime: new Uint8Array(n),
    volume: new Float64Array(n),
    bullish: new Float64Array(n),
    bearish: new Float64Array(n),
    momentum: new Float64Array(n),
  };
}

/** Votes a coin would have collected so far today on a flat day (used only at a cold start). */
function initialVotes(u: SimUniverse, i: number, minuteIndex: number): [number, number] {
  const batch = u.params.sentimentBatchMinutes;
  const minutesToday = minuteIndex - Math.floor(minuteIndex / MINUTES_PER_DAY) * MINUTES_PER_DAY;
  const total = Math.floor(u.votesPerMinute[i]! * (minutesToday - (minutesToday % batch)));
  const bullish = Math.round(total * bullishShare(0));
  return [bullish, total - bullish];
}

function initCoin(u: SimUniverse, a: SimArrays, i: number): void {
  a.price[i] = u.anchorPrice[i]!;
  a.regime[i] = stationaryRegime(hashToUnit(drawHash(u.initStreams[i]!, a.minuteIndex)));
  a.volume[i] = u.baseVolume[i]!;
  const [bull, bear] = initialVotes(u, i, a.minuteIndex);
  a.bullish[i] = bull;
  a.bearish[i] = bear;
  a.momentum[i] = 0;
}

/** Cold start at a minute: coins.json prices, regimes drawn from their long-run shares. */
export function initialArrays(u: SimUniverse, minuteIndex: number): SimArrays {
  if (!Number.isSafeInteger(minuteIndex) || minuteIndex < 0) {
    throw new RangeError(`minuteIndex must be a non-negative integer, got ${minuteIndex}`);
  }
  const a = emptyArrays(u.coins.length, minuteIndex);
  a.marketRegime = stationaryRegime(hashToUnit(drawHash(streamKeyFrom(u.seedKey, 'init:market'), minuteIndex)));
  for (let i = 0; i < u.coins.length; i += 1) initCoin(u, a, i);
  return a;
}

export function initialMarketState(u: SimUniverse, minuteIndex: number): MarketState {
  return arraysToState(u, initialArrays(u, minuteIndex));
}

export function arraysToState(u: SimUniverse, a: SimArrays): MarketState {
  return {
    version: 1,
    minuteIndex: a.minuteIndex,
    marketRegime: regimeName(a.marketRegime),
    coins: u.coins.map((coin, i) => ({
      coinId: coin.coinId,
      price: a.price[i]!,
      regime: regimeName(a.regime[i]!),
      volume24hUsd: a.volume[i]!,
      bullishVotes: a.bullish[i]!,
      bearishVotes: a.bearish[i]!,
      momentum: a.momentum[i]!,
    })),
  };
}

function checkCoinState(s: CoinSimState): void {
  const finite = [s.price, s.volume24hUsd, s.bullishVotes, s.bearishVotes, s.momentum].every(Number.isFinite);
  if (!finite || s.price <= 0 || s.volume24hUsd < 0) throw new RangeError(`corrupt sim state for coin ${s.coinId}`);
}

/**
 * Columns from a stored state. Coins are matched by coinId, so a universe that gained a
 * coin since the state was stored cold-starts just that coin; coins no longer listed are dropped.
 */
export function stateToArrays(u: SimUniverse, state: MarketState): SimArrays {
  if (state.version !== 1) throw new RangeError(`unsupported sim state version ${String(state.version)}`);
  if (!Number.isSafeInteger(state.minuteIndex) || state.minuteIndex < 0) {
    throw new RangeError(`corrupt sim state minuteIndex ${state.minuteIndex}`);
  }
  const a = emptyArrays(u.coins.length, state.minuteIndex);
  a.marketRegime = regimeCode(state.marketRegime);
  const stored = new Map(state.coins.map((c) => [c.coinId, c]));
  for (let i = 0; i < u.coins.length; i += 1) {
    const s = stored.get(u.coins[i]!.coinId);
    if (s === undefined) {
      initCoin(u, a, i);
      continue;
    }
    checkCoinState(s);
    a.price[i] = s.price;
    a.regime[i] = regimeCode(s.regime);
    a.volume[i] = s.volume24hUsd;
    a.bullish[i] = s.bullishVotes;
    a.bearish[i] = s.bearishVotes;
    a.momentum[i] = s.momentum;
  }
  return a;
}

export function copyArrays(a: SimArrays): SimArrays {
  return {
    minuteIndex: a.minuteIndex,
    marketRegime: a.marketRegime,
    price: a.price.slice(),
    regime: a.regime.slice(),
    volume: a.volume.slice(),
    bullish: a.bullish.slice(),
    bearish: a.bearish.slice(),
    momentum: a.momentum.slice(),
  };
}
