import { describe, expect, it } from 'vitest';
import { reliability, seriesStats } from '../../src/pm/calibration.js';
import { weightedMedian } from '../../src/pm/consensus.js';
import { decisionSupport } from '../../src/pm/decision-support.js';
import { matchMarkets, type MatchInput } from '../../src/pm/matching.js';
import { SimWorld } from '../../src/pm/sim/world.js';
import { appendSpark, changeOver } from '../../src/pm/spark.js';
import { VENUE_IDS } from '../../src/pm/venues.js';

const NOW = Date.UTC(2026, 10, 22, 12);
const bin = (source: string, slug: string, title: string, liquidity = 1000): MatchInput => ({ source, slug, title, kind: 'binary', outcomes: ['Yes', 'No'], liquidity, endAtMs: null });

describe('venue simulator', () => {
  it('runs the 12 venues deterministically from the seed', () => {
    expect(VENUE_IDS).toHaveLength(12);
    const a = new SimWorld('seed-a', 'realistic');
    const b = new SimWorld('seed-a', 'realistic');
    const c = new SimWorld('seed-b', 'realistic');
    for (const venue of ['polymarket', 'manifold']) {
      expect(a.snapshot(venue, NOW, NOW - 3_600_000)).toEqual(b.snapshot(venue, NOW, NOW - 3_600_000));
    }
    expect(JSON.stringify(a.snapshot('kalshi', NOW, NOW))).not.toEqual(JSON.stringify(c.snapshot('kalshi', NOW, NOW)));
    const all = VENUE_IDS.flatMap((v) => a.snapshot(v, NOW, NOW - 86_400_000).markets);
    expect(new Set(all.map((m) => m.source)).size).toBe(12);
    expect(new Set(all.map((m) => m.category)).size).toBeGreaterThanOrEqual(5);
    expect(all.some((m) => m.kind === 'multi')).toBe(true);
    for (const m of all.filter((x) => x.status === 'open')) {
      const sum = m.outcomes.reduce((s, o) => s + o.probability, 0);
      expect(sum).toBeGreaterThan(97);
      expect(sum).toBeLessThan(103);
      for (const o of m.outcomes) expect(o.bid! <= o.probability && o.probability <= o.ask!).toBe(true);
    }
  });

  it('fast profile opens and resolves flash markets within minutes, and resolutions are final values', () => {
    const w = new SimWorld('seed-a', 'fast');
    const open = w.snapshot('polymarket', NOW, NOW).markets.filter((m) => m.topics.includes('short-term') && m.status === 'open');
    expect(open.length).toBeGreaterThan(0);
    const m = open[0]!;
    expect(m.endAtMs! - m.startAtMs!).toBeLessThanOrEqual(12 * 60_000);
    const later = new SimWorld('seed-a', 'fast').snapshot('polymarket', m.endAtMs! + 10 * 60_000, NOW).markets.find((x) => x.slug === m.slug)!;
    expect(later.status).toBe('closed');
    expect(later.resolution).not.toBeNull();
    if (later.resolution!.state === 'resolved') expect(later.outcomes.map((o) => o.externalMarketId)).toContain(later.resolution!.winnerExternalMarketId);
  });

  it('prints whales only on money venues, each once per id', () => {
    const w = new SimWorld('seed-a', 'realistic');
    const whales = VENUE_IDS.flatMap((v) => w.snapshot(v, NOW, NOW - 7 * 86_400_000).whales);
    expect(whales.length).toBeGreaterThan(0);
    expect(whales.every((x) => !['manifold', 'metaculus'].includes(x.source) && x.usdValue >= 10_000 && x.price > 0 && x.price < 1)).toBe(true);
    expect(new Set(whales.map((x) => x.id)).size).toBe(whales.length);
  });
});

describe('canonical matching (text only, never prices)', () => {
  it('orients negated, antonym and swapped-subject questions and leaves unreadable ones unknown', () => {
    const results = matchMarkets([
      bin('polymarket', 'a', 'Will the Fed cut rates at its Dec 2026 meeting?', 5000),
      bin('kalshi', 'b', 'Will the Fed not cut rates at its Dec 2026 meeting?'),
      bin('gemini', 'c', 'Fed rate decision Dec 2026 meeting: cut'),
      bin('polymarket', 'd', 'Will Bitcoin close above $120,000 on Dec 31, 2026?', 5000),
      bin('smarkets', 'e', 'Will Bitcoin close below $120,000 on Dec 31, 2026?'),
      bin('myriad', 'f', 'Will Bitcoin close above $130,000 on Dec 31, 2026?'),
      bin('polymarket', 'g', 'Will the Harbor City Hawks beat the Bayview Bears on Dec 3, 2026?', 5000),
      bin('kalshi', 'h', 'Will the Bayview Bears beat the Harbor City Hawks on Dec 3, 2026?'),
      bin('rothera', 'i', 'Will the Harbor City Hawks beat the Bayview Bears on Dec 3, 2026?'),
    ]);
    const by = new Map(results.map((r) => [r.slug, r]));
    expect(by.get('a')!.orientation).toBe('same');
    expect(by.get('b')!.orientation).toBe('flipped');
    expect(by.get('c')!.orientation).toBe('unknown');
    expect(by.get('a')!.canonicalKey).toBe(by.get('c')!.canonicalKey);
    expect(by.get('e')!.orientation).toBe('flipped');
    expect(by.get('d')!.canonicalKey).toBe(by.get('e')!.canonicalKey);
    // A different threshold is a different question.
    expect(by.get('f')!.canonicalKey).toBeNull();
    expect(by.get('h')!.orientation).toBe('flipped');
    expect(by.get('i')!.orientation).toBe('same');
    expect(by.get('a')!.canonicalKey).toMatch(/^pmc_[0-9a-f]{16}$/);
  });

  it('gives the same canonical id however the markets are ordered', () => {
    const inputs = [bin('polymarket', 'a', 'Will Solana close above $200 on Nov 7, 2026?'), bin('kalshi', 'b', 'Will Solana close below $200 on Nov 7, 2026?')];
    const one = matchMarkets(inputs).find((r) => r.slug === 'a')!.canonicalKey;
    const two = matchMarkets([...inputs].reverse()).find((r) => r.slug === 'a')!.canonicalKey;
    expect(one).not.toBeNull();
    expect(one).toBe(two);
  });

  it('matches multi-outcome questions, unknown when outcome names differ', () => {
    const multi = (source: string, slug: string, outcomes: string[]): MatchInput => ({ source, slug, title: 'Who will win the Eastmoor governor race on Nov 4, 2026?', kind: 'multi', outcomes, liquidity: 10, endAtMs: null });
    const r = matchMarkets([multi('polymarket', 'x', ['Alma Reyes', 'Tomas Berg']), multi('kalshi', 'y', ['Tomas Berg', 'Alma Reyes']), multi('futuur', 'z', ['REYES', 'BERG'])]);
    expect(r.map((x) => x.orientation).sort()).toEqual(['same', 'same', 'unknown']);
  });
});

describe('consensus (consensus_probability_v1)', () => {
  it('needs two venues and counts one voice per venue', () => {
    expect(weightedMedian([{ source: 'a', liquidity: 10, probability: 40 }])).toBeNull();
    expect(weightedMedian([{ source: 'a', liquidity: 10, probability: 40 }, { source: 'a', liquidity: 50, probability: 60 }])).toBeNull();
    const r = weightedMedian([{ source: 'a', liquidity: 10, probability: 40 }, { source: 'b', liquidity: 10, probability: 60 }]);
    expect(r).toEqual({ probability: 50, venueCount: 2, spreadPoints: 20 });
  });

  it('caps a deep venue at 3x the median liquidity', () => {
    const voices = [
      { source: 'deep', liquidity: 1_000_000, probability: 90 },
      { source: 'b', liquidity: 100, probability: 40 },
      { source: 'c', liquidity: 100, probability: 42 },
      { source: 'd', liquidity: 100, probability: 44 },
      { source: 'e', liquidity: 100, probability: 46 },
    ];
    // Uncapped, the deep venue would be the median; capped at 300 it cannot outweigh the rest.
    expect(weightedMedian(voices)!.probability).toBe(46);
  });
});

describe('calibration, decision support, sparkline', () => {
  it('computes the expected calibration error over 10 bins', () => {
    const { bins, calibrationError } = reliability([
      { p: 0.95, y: 1 },
      { p: 0.05, y: 0 },
      { p: 0.7, y: 0 },
      { p: 0.3, y: 1 },
    ]);
    expect(bins).toHaveLength(10);
    expect(bins[9]).toMatchObject({ bucket: '90-100', pairs: 1, predictedMean: 0.95, realizedRate: 1 });
    expect(calibrationError).toBeCloseTo((0.05 + 0.05 + 0.7 + 0.7) / 4, 6);
    const s = seriesStats([
      { outcomeIds: ['y', 'n'], probabilities: [80, 20], winner: 'y' },
      { outcomeIds: ['y', 'n'], probabilities: null, winner: 'y' },
      { outcomeIds: ['y', 'n'], probabilities: [80], winner: 'y' },
      { outcomeIds: ['y', 'n'], probabilities: [80, 20], winner: 'z' },
    ]);
    expect(s.sampleSize).toBe(1);
    expect(s.excluded).toEqual({ noLeadPoint: 1, partialBookAtLead: 1, winnerNotAnOutcome: 1 });
    expect(s.meanWinnerConfidence).toBe(0.8);
  });

  it('tiers decision support from the cut-off table', () => {
    const d = decisionSupport({ spreadPoints: 1, liquidity: 100_000, volume24h: 100_000, leaderProbability: 50, endAtMs: NOW + 3_600_000, nowMs: NOW });
    expect(d).toMatchObject({ qualityTier: 'high', spreadTier: 'tight', liquidityTier: 'high', volumeTier: 'high', flags: { highAmbiguity: true, nearResolution: true, thinMarket: false } });
    const thin = decisionSupport({ spreadPoints: null, liquidity: 10, volume24h: 0, leaderProbability: 95, endAtMs: null, nowMs: NOW });
    expect(thin).toMatchObject({ qualityTier: 'low', spreadTier: 'unknown', flags: { thinMarket: true, inactiveMarket: true } });
  });

  it('keeps at most one sparkline point per 3.5 h over 7 days, always the latest', () => {
    let spark: number[][] = [];
    for (let t = NOW - 10 * 86_400_000; t <= NOW; t += 300_000) spark = appendSpark(spark, [t, 50, 50]);
    expect(spark.length).toBeLessThanOrEqual(50);
    expect(spark[spark.length - 1]![0]).toBe(NOW);
    expect(spark[0]![0]).toBeGreaterThan(NOW - 7 * 86_400_000);
  });

  it('has a 7-day change only for a market about 7 days old (one listed minutes or hours ago had one)', () => {
    const DAY = 86_400_000;
    const listedAgo = (ms: number) => {
      let spark: number[][] = [];
      for (let t = NOW - ms; t <= NOW; t += 300_000) spark = appendSpark(spark, [t, t === NOW ? 70 : 40, 60]);
      return spark;
    };
    for (const age of [600_000, 18 * 3_600_000, 3 * DAY]) {
      expect(changeOver(listedAgo(age), 0, NOW, 7 * DAY), `listed ${age} ms ago`).toBeNull();
    }
    expect(changeOver(listedAgo(18 * 3_600_000), 0, NOW, DAY)).toBeNull();
    // a week or more of points: the oldest kept one stands for the window's start
    for (const age of [7 * DAY, 10 * DAY]) expect(changeOver(listedAgo(age), 0, NOW, 7 * DAY)).toBe(30);
    expect(changeOver(listedAgo(2 * DAY), 0, NOW, DAY)).toBe(30);
  });
});
