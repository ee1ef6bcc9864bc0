import { describe, expect, it } from 'vitest';
import { matchMarkets } from '../../../src/pm/matching.js';
import type { CoinPrices } from '../../../src/pm/sim/coin-prices.js';
import { archiveCatalog, flashQuestionsAround, regularQuestionsAround, type Question } from '../../../src/pm/sim/questions.js';
import { SimWorld } from '../../../src/pm/sim/world.js';
import type { MarketState } from '../../../src/pm/types.js';
import { VENUE_IDS } from '../../../src/pm/venues.js';

/** The PM test app's world (test/support/pm-app.ts, test/support/app.ts): seed, profile, clock, 8 days back-filled. */
const SEED = 'pm-test';
const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MONTH = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/gi;

/** The archive and every market listed over the back-filled week (snapshots every 3 hours, flash markets with them). */
function universe(w: SimWorld): MarketState[] {
  const markets = new Map<string, MarketState>();
  const add = (m: MarketState) => markets.set(`${m.source}/${m.slug}`, m);
  w.archive().forEach(add);
  for (let t = NOW - 8 * DAY; t <= NOW; t += 3 * HOUR) for (const v of VENUE_IDS) w.snapshot(v, t, t).markets.forEach(add);
  return [...markets.values()];
}

/** A made-up deterministic coin path, so coin questions take their thresholds from prices. */
const BASE: Record<string, number> = { '1': 90_000, '1027': 3_000, '5426': 150, '52': 2, '74': 0.2 };
const pathAt = (coinId: string, atMs: number) => (!(coinId in BASE) ? null : BASE[coinId]! * Math.exp(0.03 * Math.sin(atMs / (5 * HOUR))));
const prices: CoinPrices = { volatilityScale: 1, priceAt: (coinId, atMs) => (atMs > NOW ? null : pathAt(coinId, atMs)), knownAt: (coinId, atMs) => pathAt(coinId, Math.min(atMs, NOW)) };

const sharedTitles = (questions: Question[]) => {
  const keys = new Map<string, string[]>();
  for (const q of questions) keys.set(q.title, [...(keys.get(q.title) ?? []), q.key]);
  return [...keys].filter(([, k]) => k.length > 1);
};

describe('simulated universe: canonical events', () => {
  it('has no event with two markets of one venue, nor one whose markets name different months', () => {
    const markets = universe(new SimWorld(SEED, 'fast'));
    const results = matchMarkets(markets.map((m) => ({ source: m.source, slug: m.slug, title: m.title, kind: m.kind, outcomes: m.outcomes.map((o) => o.name), liquidity: m.liquidity, endAtMs: m.endAtMs })));
    const title = new Map(markets.map((m) => [`${m.source}/${m.slug}`, m.title]));
    const events = new Map<string, { source: string; slug: string }[]>();
    for (const r of results) if (r.canonicalKey) events.set(r.canonicalKey, [...(events.get(r.canonicalKey) ?? []), r]);
    expect(events.size).toBeGreaterThan(20);
    for (const members of events.values()) {
      const names = members.map((m) => `${m.source}/${m.slug}`);
      expect(new Set(members.map((m) => m.source)).size, names.join(' ')).toBe(members.length);
      const months = members.map((m) => [...title.get(`${m.source}/${m.slug}`)!.matchAll(MONTH)].map((x) => x[1]!.toLowerCase()).sort().join(','));
      expect(new Set(months).size, names.join(' ')).toBe(1);
    }
  });

  it('lists no two distinct questions with the same wording (regular, daily Bitcoin, flash, archive)', () => {
    for (const p of [undefined, prices]) {
      const regular = regularQuestionsAround(SEED, NOW, 90 * DAY, p);
      expect(regular.length).toBeGreaterThan(100);
      expect(sharedTitles(regular)).toEqual([]);
    }
    expect(sharedTitles(flashQuestionsAround(SEED, NOW, 2 * DAY, prices))).toEqual([]);
    expect(sharedTitles(archiveCatalog(SEED))).toEqual([]);
  });
});
