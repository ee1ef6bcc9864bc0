import { describe, expect, it } from 'vitest';
import { CANDLE_RANGES, CANDLE_RANGE_NAMES, barToCandle, buildCandles, mergeBars, type PriceSample } from '../../../src/domain/candles.js';
import { percentChange } from '../../../src/domain/market-stats.js';
import { loadCoins } from '../../../src/marketdata/coins.js';
import {
  TICKS_PER_MINUTE,
  TICK_MS,
  backfill,
  createSimUniverse,
  initialMarketState,
  pricesAt,
  runMarket,
  seriesBars,
  seriesCandles,
  stepMarket,
  type MarketState,
} from '../../../src/marketdata/sim/index.js';

const allCoins = loadCoins();
const TO = 29_500_000 + 7; // "now", not on a bar boundary of the wider ranges
const DAY = 1440;

describe('back-fill', () => {
  // Three coins over 91 days keep the reference computation cheap.
  const coins = allCoins.filter((c) => ['1', '1027', '825'].includes(c.coinId));
  const from = TO - 91 * DAY;
  const result = backfill(coins, 'bf-candles', from, TO);

  it.each(CANDLE_RANGE_NAMES)('fills the %s range completely, oldest to newest, with valid bars', (range) => {
    const { barSeconds, count } = CANDLE_RANGES[range];
    const series = result.series[range]!;
    for (let i = 0; i < coins.length; i += 1) {
      const candles = seriesCandles(series, i);
      expect(candles).toHaveLength(count);
      candles.forEach((c, k) => {
        expect(c.t % barSeconds).toBe(0);
        if (k > 0) expect(c.t - candles[k - 1]!.t).toBe(barSeconds);
        expect(c.l).toBeLessThanOrEqual(Math.min(c.o, c.c));
        expect(c.h).toBeGreaterThanOrEqual(Math.max(c.o, c.c));
        expect(c.v).toBeGreaterThan(0);
      });
      const last = candles[candles.length - 1]!;
      expect(last.t).toBeLessThanOrEqual(TO * 60);
      expect(last.t + barSeconds).toBeGreaterThan(TO * 60);
    }
  });

  it('builds the same bars as buildCandles over the minute states and 10-second ticks', () => {
    const u = createSimUniverse(coins, 'bf-candles');
    const minuteSamples: PriceSample[][] = coins.map(() => []);
    const tickSamples: PriceSample[][] = coins.map(() => []);
    let state: MarketState = initialMarketState(u, from);
    for (;;) {
      state.coins.forEach((c, i) => {
        const sample = { t: state.minuteIndex * 60, price: c.price, volume24hUsd: c.volume24hUsd };
        minuteSamples[i]!.push(sample);
        if (state.minuteIndex > TO - 60) tickSamples[i]!.push(sample);
      });
      if (state.minuteIndex === TO) break;
      const next = stepMarket(u, state);
      if (state.minuteIndex > TO - 60) {
        for (let k = 1; k < TICKS_PER_MINUTE; k += 1) {
          const ms = state.minuteIndex * 60_000 + k * TICK_MS;
          const prices = pricesAt(u, state, next, ms);
          state.coins.forEach((c, i) => tickSamples[i]!.push({ t: ms / 1000, price: prices[i]!, volume24hUsd: c.volume24hUsd }));
        }
      }
      state = next;
    }
    expect(result.state).toEqual(state);
    for (let i = 0; i < coins.length; i += 1) {
      for (const range of CANDLE_RANGE_NAMES) {
        const source = range === '1H' ? tickSamples[i]! : minuteSamples[i]!;
        const expected = buildCandles(source, range, { nowSec: TO * 60 });
        const actual = seriesCandles(result.series[range]!, i);
        expect(actual.map((c) => [c.t, c.o, c.h, c.l, c.c])).toEqual(expected.map((c) => [c.t, c.o, c.h, c.l, c.c]));
        actual.forEach((c, k) => expect(c.v).toBeCloseTo(expected[k]!.v, 3));
      }
    }
  });

  it('reports changes against the prices 1 h, 24 h and 7 d back', () => {
    const eth = coins.findIndex((c) => c.coinId === '1027');
    const snapshot = result.snapshot.coins[eth]!;
    const minuteBars = seriesCandles(result.series['1H']!, eth);
    // The oldest 1-minute bar opens 59 minutes back; its open is the state 59 minutes ago, not 60.
    expect(minuteBars[0]!.t).toBe((TO - 59) * 60);
    expect(snapshot.change1h).toBeCloseTo(percentChange(snapshot.priceUsd, result.baselines.oneHourAgo![eth])!, 10);
    expect(snapshot.change24h).not.toBeNull();
    expect(snapshot.change7d).not.toBeNull();
    expect(snapshot.priceUsd).toBe(result.state.coins[eth]!.price);
    expect(snapshot.marketCapUsd).toBeCloseTo(snapshot.priceUsd * coins[eth]!.circulatingSupply, 0);
  });

  it('starts from the catalogue prices and leaves out history before the window', () => {
    const short = backfill(coins, 'short', TO - 2 * DAY, TO);
    const btcHourly = seriesCandles(short.series['1M']!, 0);
    expect(btcHourly.length).toBeGreaterThanOrEqual(48);
    expect(btcHourly.length).toBeLessThanOrEqual(49);
    expect(btcHourly[0]!.o).toBe(coins[0]!.priceUsd);
    expect(short.snapshot.coins[0]!.change7d).toBeNull();
    expect(short.snapshot.coins[0]!.change24h).not.toBeNull();
  });

  it('gives a Fear & Greed reading with a matching label', () => {
    const full = backfill(allCoins, 'fg', TO - 8 * DAY, TO, { ranges: ['1D'] });
    const { value, label } = full.snapshot.fearGreed;
    expect(Number.isInteger(value)).toBe(true);
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBeLessThanOrEqual(100);
    const expected = value < 25 ? 'Extreme Fear' : value < 45 ? 'Fear' : value <= 55 ? 'Neutral' : value <= 75 ? 'Greed' : 'Extreme Greed';
    expect(label).toBe(expected);
    expect(Object.keys(full.series)).toEqual(['1D']);
  });
});

describe('continuing a run after a restart', () => {
  it('gives bars that merge with the stored ones into exactly the uninterrupted bars', () => {
    const coins = allCoins.slice(0, 5);
    const from = TO - 3 * DAY;
    const cut = TO - 437; // restart 7 h 17 min before now
    const whole = backfill(coins, 'merge', from, TO);
    const first = backfill(coins, 'merge', from, cut);
    const stored = JSON.parse(JSON.stringify(first.state)) as MarketState;
    const rest = runMarket(createSimUniverse(coins, 'merge'), stored, TO, { startSampleFolded: true });
    expect(rest.state).toEqual(whole.state);
    for (const range of CANDLE_RANGE_NAMES) {
      for (let i = 0; i < coins.length; i += 1) {
        const byOpen = new Map(seriesBars(first.series[range]!, i).map((b) => [b.t, b]));
        for (const bar of seriesBars(rest.series[range]!, i)) {
          const earlier = byOpen.get(bar.t);
          byOpen.set(bar.t, earlier === undefined ? bar : mergeBars(earlier, bar));
        }
        const merged = [...byOpen.values()].sort((a, b) => a.t - b.t).map(barToCandle);
        const expected = seriesCandles(whole.series[range]!, i);
        const tail = merged.slice(-expected.length);
        expect(tail.map((c) => [c.t, c.o, c.h, c.l, c.c])).toEqual(expected.map((c) => [c.t, c.o, c.h, c.l, c.c]));
        // volume sums are added in a different order, so allow rounding
        tail.forEach((c, k) => expect(c.v / expected[k]!.v).toBeCloseTo(1, 12));
      }
    }
  });
});
