import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadCoins } from '../../../src/marketdata/coins.js';
import {
  advanceMarket,
  backfill,
  createSimUniverse,
  initialMarketState,
  stepMarket,
  type MarketState,
} from '../../../src/marketdata/sim/index.js';

const coins = loadCoins();
const START = 29_400_000; // a minute in 2025
const roundTrip = (state: MarketState): MarketState => JSON.parse(JSON.stringify(state)) as MarketState;

describe('simulated market determinism', () => {
  it('the same seed gives identical prices', () => {
    const a = advanceMarket(createSimUniverse(coins, 'same'), initialMarketState(createSimUniverse(coins, 'same'), START), START + 500);
    const u = createSimUniverse(coins, 'same');
    const b = advanceMarket(u, initialMarketState(u, START), START + 500);
    expect(b).toEqual(a);
  });

  it('a different seed gives different prices', () => {
    const u1 = createSimUniverse(coins, 'one');
    const u2 = createSimUniverse(coins, 'two');
    const a = advanceMarket(u1, initialMarketState(u1, START), START + 120);
    const b = advanceMarket(u2, initialMarketState(u2, START), START + 120);
    const differing = a.coins.filter((c, i) => c.price !== b.coins[i]!.price).length;
    expect(differing).toBeGreaterThan(coins.length * 0.9);
  });

  it('resuming from a stored state at minute m equals the uninterrupted run', () => {
    const u = createSimUniverse(coins, 'resume');
    const start = initialMarketState(u, START);
    const uninterrupted = advanceMarket(u, start, START + 3 * 1440 + 17);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * 1440 + 17 }), (offset) => {
        const stored = roundTrip(advanceMarket(u, start, START + offset));
        // a fresh universe, as after a process restart
        const restarted = createSimUniverse(coins, 'resume');
        expect(advanceMarket(restarted, stored, START + 3 * 1440 + 17)).toEqual(uninterrupted);
      }),
      { numRuns: 8 },
    );
  });

  it('stepping one minute at a time equals advancing in one go', () => {
    const u = createSimUniverse(coins, 'steps');
    let state = initialMarketState(u, START);
    for (let i = 0; i < 30; i += 1) state = stepMarket(u, roundTrip(state));
    expect(state).toEqual(advanceMarket(u, initialMarketState(u, START), START + 30));
    expect(state.minuteIndex).toBe(START + 30);
  });

  it('back-fill ends in the same state as plain stepping', () => {
    const result = backfill(coins, 'bf', START, START + 2000);
    const u = createSimUniverse(coins, 'bf');
    expect(result.state).toEqual(advanceMarket(u, initialMarketState(u, START), START + 2000));
  });

  it('stepMarket leaves its input untouched', () => {
    const u = createSimUniverse(coins, 'pure');
    const state = initialMarketState(u, START);
    const copy = roundTrip(state);
    stepMarket(u, state);
    expect(state).toEqual(copy);
  });

  it('refuses to step backwards and rejects corrupt states', () => {
    const u = createSimUniverse(coins, 'guard');
    const state = initialMarketState(u, START);
    expect(() => advanceMarket(u, state, START - 1)).toThrow(RangeError);
    const corrupt = roundTrip(state);
    corrupt.coins[0]!.price = -1;
    expect(() => stepMarket(u, corrupt)).toThrow(RangeError);
  });

  it('a coin missing from a stored state cold-starts at its catalogue price', () => {
    const u = createSimUniverse(coins, 'grow');
    const state = roundTrip(advanceMarket(u, initialMarketState(u, START), START + 10));
    state.coins = state.coins.filter((c) => c.coinId !== '1027');
    const next = stepMarket(u, state);
    const eth = next.coins.find((c) => c.coinId === '1027')!;
    expect(eth.price / coins.find((c) => c.coinId === '1027')!.priceUsd).toBeGreaterThan(0.9);
    expect(eth.price / coins.find((c) => c.coinId === '1027')!.priceUsd).toBeLessThan(1.1);
  });
});
