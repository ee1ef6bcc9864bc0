import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadCoins } from '../../../src/marketdata/coins.js';
import { isPeggedStablecoin } from '../../../src/marketdata/sim/coin-kind.js';
import { SIM_PROFILES, createSimUniverse, type SimParams } from '../../../src/marketdata/sim/index.js';
import { initialArrays, type SimArrays } from '../../../src/marketdata/sim/state.js';
import { stepArrays } from '../../../src/marketdata/sim/step.js';
import type { SimUniverse } from '../../../src/marketdata/sim/universe.js';

const coins = loadCoins();
const START = 29_400_000 - (29_400_000 % 1440); // midnight UTC
const indexOf = (coinId: string): number => coins.findIndex((c) => c.coinId === coinId);

/** Runs `minutes` steps, calling `each` after every step. */
function run(u: SimUniverse, minutes: number, each: (a: SimArrays) => void, start = START): SimArrays {
  const a = initialArrays(u, start);
  for (let m = 0; m < minutes; m += 1) {
    stepArrays(u, a);
    each(a);
  }
  return a;
}

function correlation(x: number[], y: number[]): number {
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let cxy = 0;
  let cxx = 0;
  let cyy = 0;
  for (let i = 0; i < x.length; i += 1) {
    cxy += (x[i]! - mx) * (y[i]! - my);
    cxx += (x[i]! - mx) ** 2;
    cyy += (y[i]! - my) ** 2;
  }
  return cxy / Math.sqrt(cxx * cyy);
}

const stdev = (xs: number[]): number => {
  const m = xs.reduce((s, v) => s + v, 0) / xs.length;
  return Math.sqrt(xs.reduce((s, v) => s + (v - m) ** 2, 0) / (xs.length - 1));
};

describe('simulated market behaviour', () => {
  it('knows the stablecoins, including ones without a category, and not depegged "stablecoins"', () => {
    const stable = coins.filter(isPeggedStablecoin).map((c) => c.symbol);
    expect(stable).toEqual(expect.arrayContaining(['USDT', 'USDC', 'DAI', 'USDe', 'FDUSD', 'TUSD', 'USDG']));
    expect(stable).not.toContain('USTC'); // tagged Stablecoin, trades at cents
    expect(stable).not.toContain('RSR');
    expect(stable).not.toContain('BTC');
  });

  it('keeps stablecoins within 1 % of $1 over 60 days, wobbling and pulled back to the peg', () => {
    // Stablecoins only depend on their own draws, so a small universe keeps the test quick.
    const subset = coins.filter((c) => isPeggedStablecoin(c) || c.coinId === '1');
    const u = createSimUniverse(subset, 'stable');
    const stables = subset.map((c, i) => (isPeggedStablecoin(c) ? i : -1)).filter((i) => i >= 0);
    const distinct = stables.map(() => new Set<number>());
    let worst = 0;
    let worstAfterFirstDay = 0;
    let minutes = 0;
    run(u, 60 * 1440, (a) => {
      minutes += 1;
      stables.forEach((i, k) => {
        const deviation = Math.abs(a.price[i]! - 1);
        worst = Math.max(worst, deviation);
        if (minutes > 1440) worstAfterFirstDay = Math.max(worstAfterFirstDay, deviation);
        if (minutes % 60 === 0) distinct[k]!.add(a.price[i]!);
      });
    });
    expect(stables.length).toBeGreaterThanOrEqual(10);
    expect(worst).toBeLessThan(0.01);
    // Some start up to ~1 % off (FRAX, LUSD); after a day every one hugs the peg.
    expect(worstAfterFirstDay).toBeLessThan(0.005);
    for (const seen of distinct) expect(seen.size).toBeGreaterThan(1000);
  });

  it('moves large caps together with BTC and gives BTC a realistic daily volatility', () => {
    const subset = coins.filter((c) => c.rank <= 15 || c.rank > 400);
    const u = createSimUniverse(subset, 'corr');
    const large = subset.map((c, i) => ({ c, i })).filter(({ c, i }) => c.rank <= 15 && c.coinId !== '1' && u.isStable[i] === 0);
    const hourly: number[][] = subset.map(() => []);
    let last = initialArrays(u, START).price.slice();
    let minutes = 0;
    run(u, 60 * 1440, (a) => {
      minutes += 1;
      if (minutes % 60 !== 0) return;
      for (let i = 0; i < subset.length; i += 1) hourly[i]!.push(Math.log(a.price[i]! / last[i]!));
      last = a.price.slice();
    });
    const btc = hourly[subset.findIndex((c) => c.coinId === '1')]!;
    expect(large.length).toBeGreaterThan(8);
    for (const { i } of large) expect(correlation(hourly[i]!, btc)).toBeGreaterThan(0.3);
    const btcDaily = stdev(btc) * Math.sqrt(24);
    expect(btcDaily).toBeGreaterThan(0.02);
    expect(btcDaily).toBeLessThan(0.045);
    // small caps swing harder than BTC
    const small = subset.map((c, i) => ({ c, i })).filter(({ c, i }) => c.rank > 400 && u.isStable[i] === 0);
    expect(small.length).toBeGreaterThan(20);
    const smallDaily = small.map(({ i }) => stdev(hourly[i]!) * Math.sqrt(24));
    expect(smallDaily.reduce((s, v) => s + v, 0) / smallDaily.length).toBeGreaterThan(btcDaily * 1.5);
  });

  it('switches between all four regimes, mostly calm', () => {
    const u = createSimUniverse(coins, 'regimes');
    const counts = [0, 0, 0, 0];
    run(u, 10 * 1440, (a) => {
      for (let i = 0; i < coins.length; i += 1) counts[a.regime[i]!]! += 1;
    });
    const total = counts.reduce((s, v) => s + v, 0);
    for (const c of counts) expect(c / total).toBeGreaterThan(0.03);
    expect(counts[0]! / total).toBeGreaterThan(0.35);
  });

  it('keeps prices positive and finite even with extreme parameters', () => {
    const wild: SimParams = { ...SIM_PROFILES.fast, volatilityScale: 40, maxMinuteLogReturn: 2 };
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.integer({ min: 0, max: 40_000_000 }), (seed, start) => {
        const u = createSimUniverse(coins.slice(0, 40), seed, wild);
        const a = run(u, 400, () => undefined, start);
        for (const p of a.price) {
          expect(p).toBeGreaterThan(0);
          expect(Number.isFinite(p)).toBe(true);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('keeps the rolling 24 h volume positive and near its base, higher when the market is wild', () => {
    const u = createSimUniverse(coins, 'volume');
    const a = run(u, 5 * 1440, () => undefined);
    const ratios = coins.map((_c, i) => a.volume[i]! / u.baseVolume[i]!);
    expect(Math.min(...ratios)).toBeGreaterThan(0.1);
    expect(Math.max(...ratios)).toBeLessThan(10);
    // Pin every regime (no switching) to compare a volatile day with a calm one.
    const pinned: SimUniverse = { ...u, params: { ...u.params, coinRegimeRefreshPerMinute: 0, marketRegimeRefreshPerMinute: 0 } };
    const wild = initialArrays(pinned, START);
    const calm = initialArrays(pinned, START);
    wild.regime.fill(3);
    wild.marketRegime = 3;
    calm.regime.fill(0);
    calm.marketRegime = 0;
    for (let m = 0; m < 1440; m += 1) {
      stepArrays(pinned, wild);
      stepArrays(pinned, calm);
    }
    // Volume also scales with sqrt(price); divide that out to compare activity alone.
    const activity = (s: SimArrays, i: number): number => s.volume[i]! / Math.sqrt(s.price[i]!);
    const higher = coins.filter((_c, i) => activity(wild, i) > activity(calm, i)).length;
    expect(higher / coins.length).toBeGreaterThan(0.9);
  });

  it('counts sentiment votes as integers that reset at 00:00 UTC and lean with momentum', () => {
    const u = createSimUniverse(coins, 'votes');
    const btc = indexOf('1');
    let badCounts = 0;
    const atMidnight: number[] = [];
    const a = run(u, 2 * 1440 + 300, (s) => {
      for (let i = 0; i < coins.length; i += 1) {
        const ok = Number.isInteger(s.bullish[i]!) && Number.isInteger(s.bearish[i]!) && s.bullish[i]! >= 0 && s.bearish[i]! >= 0;
        if (!ok) badCounts += 1;
      }
      if (s.minuteIndex % 1440 === 0) atMidnight.push(s.bullish[btc]! + s.bearish[btc]!);
    });
    expect(badCounts).toBe(0);
    expect(atMidnight).toEqual([0, 0]);
    expect(a.bullish[btc]! + a.bearish[btc]!).toBeGreaterThan(100); // 300 minutes into a day
    // Same day, same coin: a strong recent rally draws a larger bullish share than a slump.
    const up = initialArrays(u, START + 600);
    const down = initialArrays(u, START + 600);
    up.momentum.fill(0.3);
    down.momentum.fill(-0.3);
    for (let m = 0; m < 60; m += 1) {
      stepArrays(u, up);
      stepArrays(u, down);
    }
    const share = (s: SimArrays, i: number): number => s.bullish[i]! / (s.bullish[i]! + s.bearish[i]!);
    expect(share(up, btc)).toBeGreaterThan(share(down, btc));
  });
});
