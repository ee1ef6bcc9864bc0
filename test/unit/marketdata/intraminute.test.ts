import { describe, expect, it } from 'vitest';
import { loadCoins } from '../../../src/marketdata/coins.js';
import {
  TICK_MS,
  TICKS_PER_MINUTE,
  coinPriceAt,
  createSimUniverse,
  initialMarketState,
  pricesAt,
  stepMarket,
} from '../../../src/marketdata/sim/index.js';

const coins = loadCoins();
const u = createSimUniverse(coins, 'ticks');
const MINUTE = 29_400_123;
const state = stepMarket(u, stepMarket(u, initialMarketState(u, MINUTE - 2)));
const next = stepMarket(u, state);
const t0 = MINUTE * 60_000;

describe('sub-minute prices', () => {
  it('tick at least every 10 seconds', () => {
    expect(TICK_MS).toBeLessThanOrEqual(10_000);
    expect(TICKS_PER_MINUTE * TICK_MS).toBe(60_000);
  });

  it('equal the minute state at the start of the minute and run into the next state', () => {
    const atStart = pricesAt(u, state, next, t0);
    const nearEnd = pricesAt(u, state, next, t0 + 59_999);
    state.coins.forEach((c, i) => {
      expect(atStart[i]).toBe(c.price);
      expect(Math.abs(nearEnd[i]! / next.coins[i]!.price - 1)).toBeLessThan(0.002);
    });
  });

  it('are deterministic and do not depend on which ticks were asked before', () => {
    const later = pricesAt(u, state, next, t0 + 40_000);
    pricesAt(u, state, next, t0 + 10_000);
    expect(pricesAt(u, state, next, t0 + 40_000)).toEqual(later);
    expect(coinPriceAt(u, state, next, '1', t0 + 40_000)).toBe(later[0]);
    expect(coinPriceAt(u, state, next, 'no-such-coin', t0 + 40_000)).toBeNull();
  });

  it('move between ticks, stay positive and stay near the minute path', () => {
    const btc = coins.findIndex((c) => c.coinId === '1');
    const ticks = Array.from({ length: TICKS_PER_MINUTE }, (_, k) => pricesAt(u, state, next, t0 + k * TICK_MS));
    const btcTicks = ticks.map((p) => p[btc]!);
    expect(new Set(btcTicks).size).toBe(TICKS_PER_MINUTE);
    const low = Math.min(state.coins[btc]!.price, next.coins[btc]!.price);
    const high = Math.max(state.coins[btc]!.price, next.coins[btc]!.price);
    for (const p of btcTicks) {
      expect(p).toBeGreaterThan(low * 0.99);
      expect(p).toBeLessThan(high * 1.01);
    }
    for (const tick of ticks) for (const p of tick) expect(p).toBeGreaterThan(0);
  });

  it('reject an instant outside the minute or states that are not consecutive', () => {
    expect(() => pricesAt(u, state, next, t0 + 60_000)).toThrow(RangeError);
    expect(() => pricesAt(u, state, state, t0 + 1_000)).toThrow(RangeError);
  });
});
