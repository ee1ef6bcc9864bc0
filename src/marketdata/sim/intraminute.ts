/**
 * Prices between minute states. Each minute holds a Brownian bridge on a 10-second grid
 * pinned to the two minute prices, so every tick is deterministic, ticks of one minute
 * form one coherent path, and the minute bars stay exactly the state prices.
 */
import { MS_PER_MINUTE, minuteIndexOf } from './params.js';
import { drawHash, hashToNormal, streamKeyFrom, subHash } from './random.js';
import { REGIME_VOL } from './regimes.js';
import { stateToArrays, type MarketState, type SimArrays } from './state.js';
import type { SimUniverse } from './universe.js';

export const TICK_MS = 10_000;
export const TICKS_PER_MINUTE = MS_PER_MINUTE / TICK_MS;

const INCREMENT_SD = 1 / Math.sqrt(TICKS_PER_MINUTE);

/** A unit-variance-per-minute Brownian bridge at grid points 0..6 (both ends 0). */
function bridgeGrid(stream: number, minute: number, out: Float64Array): void {
  const hash = drawHash(stream, minute);
  let walk = 0;
  out[0] = 0;
  for (let k = 1; k <= TICKS_PER_MINUTE; k += 1) {
    walk += INCREMENT_SD * hashToNormal(subHash(hash, k - 1));
    out[k] = walk;
  }
  for (let k = 1; k <= TICKS_PER_MINUTE; k += 1) out[k] = out[k]! - (k / TICKS_PER_MINUTE) * walk;
}

/** Bridge value at fraction f of the minute, straight between grid points. */
function bridgeAt(grid: Float64Array, fraction: number): number {
  const x = fraction * TICKS_PER_MINUTE;
  const k = Math.min(Math.floor(x), TICKS_PER_MINUTE - 1);
  return grid[k]! + (grid[k + 1]! - grid[k]!) * (x - k);
}

function marketTickStream(u: SimUniverse): number {
  return streamKeyFrom(u.seedKey, 'tick:market');
}

/**
 * Prices of every coin (universe order) at unixMs inside minute `from.minuteIndex`,
 * given the columns at that minute and the next. Regimes of the earlier minute apply.
 */
export function pricesBetween(u: SimUniverse, from: SimArrays, to: SimArrays, unixMs: number, out?: Float64Array): Float64Array {
  const minute = from.minuteIndex;
  if (to.minuteIndex !== minute + 1) throw new RangeError('pricesBetween needs states of consecutive minutes');
  if (minuteIndexOf(unixMs) !== minute) throw new RangeError(`instant ${unixMs} is not inside minute ${minute}`);
  const n = u.coins.length;
  const prices = out ?? new Float64Array(n);
  const fraction = (unixMs - minute * MS_PER_MINUTE) / MS_PER_MINUTE;
  if (fraction === 0) {
    prices.set(from.price);
    return prices;
  }
  const grid = new Float64Array(TICKS_PER_MINUTE + 1);
  bridgeGrid(marketTickStream(u), minute, grid);
  const marketBridge = u.marketMinuteVol * REGIME_VOL[from.marketRegime]! * bridgeAt(grid, fraction);
  for (let i = 0; i < n; i += 1) {
    bridgeGrid(u.tickStreams[i]!, minute, grid);
    const ownVol = u.isStable[i] === 1 ? u.params.stableMinuteNoise : u.idioMinuteVol[i]! * REGIME_VOL[from.regime[i]!]!;
    const offset = u.beta[i]! * marketBridge + ownVol * bridgeAt(grid, fraction);
    const start = Math.log(from.price[i]!);
    const end = Math.log(to.price[i]!);
    prices[i] = Math.exp(start + fraction * (end - start) + offset);
  }
  return prices;
}

/** Every coin's price at unixMs, between the stored states of its minute and the next. */
export function pricesAt(u: SimUniverse, state: MarketState, next: MarketState, unixMs: number): Float64Array {
  return pricesBetween(u, stateToArrays(u, state), stateToArrays(u, next), unixMs);
}

/** One coin's price at unixMs; null for a coin outside the universe. */
export function coinPriceAt(u: SimUniverse, state: MarketState, next: MarketState, coinId: string, unixMs: number): number | null {
  const i = u.indexById.get(coinId);
  return i === undefined ? null : pricesAt(u, state, next, unixMs)[i]!;
}

