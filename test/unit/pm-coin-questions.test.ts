import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coinPricesFromMarket, type CoinPrices } from '../../src/pm/sim/coin-prices.js';
import { SimWorld } from '../../src/pm/sim/world.js';
import type { MarketState } from '../../src/pm/types.js';
import { VENUE_IDS } from '../../src/pm/venues.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { startSmallMarket } from '../support/small-market.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const HOUR = 3_600_000;
const COIN_NAMES: Record<string, string> = { '1': 'Bitcoin', '1027': 'Ethereum', '5426': 'Solana', '52': 'XRP', '74': 'Dogecoin' };
const BASE: Record<string, number> = { '1': 60_000, '1027': 2_000, '5426': 94, '52': 1.1, '74': 0.09 };

/** A made-up deterministic path, far from the fixed reference prices, known only up to `upTo`. */
function fakePrices(upTo: () => number): CoinPrices {
  const pathAt = (coinId: string, atMs: number) => (!(coinId in BASE) ? null : BASE[coinId]! * Math.exp(0.03 * Math.sin(atMs / (5 * HOUR))));
  return {
    volatilityScale: 1,
    priceAt: (coinId, atMs) => (atMs > upTo() ? null : pathAt(coinId, atMs)),
    knownAt: (coinId, atMs) => pathAt(coinId, Math.min(atMs, upTo())),
  };
}

const thresholdOf = (m: MarketState) => Number(/\$([\d,.]+)/.exec(m.title)![1]!.replace(/,/g, ''));
/** The price-threshold markets (other coin questions, e.g. all-time highs, name no price). */
const coinMarkets = (w: SimWorld, at: number) =>
  VENUE_IDS.flatMap((v) => w.snapshot(v, at, at).markets).filter((m) => m.coinIds.length === 1 && m.coinIds[0]! in COIN_NAMES && m.title.includes('$'));

describe('coin price questions follow the simulated price path', () => {
  it('set thresholds near the coin price at creation (flash ±1 %, daily closes ±8 %)', () => {
    const prices = fakePrices(() => NOW);
    const markets = coinMarkets(new SimWorld('coherent', 'fast', prices), NOW);
    expect(markets.length).toBeGreaterThan(3);
    for (const m of markets) {
      const anchorAt = m.topics.includes('short-term') ? m.startAtMs! : Math.floor(m.startAtMs! / (4 * HOUR)) * 4 * HOUR;
      const ratio = thresholdOf(m) / prices.priceAt(m.coinIds[0]!, anchorAt)!;
      const band = m.topics.includes('short-term') ? 0.011 : 0.081;
      expect(Math.abs(ratio - 1), m.title).toBeLessThanOrEqual(band);
      expect(m.title).toContain(COIN_NAMES[m.coinIds[0]!]!);
    }
  });

  it('settle on the price at the end: Yes exactly when the price there is above the threshold', () => {
    let upTo = NOW;
    const prices = fakePrices(() => upTo);
    const settled: MarketState[] = [];
    for (let at = NOW; at <= NOW + 3 * 24 * HOUR && settled.length < 20; at += 2 * HOUR) {
      upTo = at;
      const w = new SimWorld('coherent', 'fast', prices);
      settled.push(...coinMarkets(w, at).filter((m) => m.resolution !== null && !m.title.includes(' vs ')));
    }
    expect(settled.length).toBeGreaterThan(0);
    for (const m of settled) {
      const above = prices.priceAt(m.coinIds[0]!, m.endAtMs!)! > thresholdOf(m);
      const yesWins = m.title.includes(' above ') ? above : !above; // flipped listings ask "below"
      const winner = m.outcomes.find((o) => o.externalMarketId === m.resolution!.winnerExternalMarketId)!;
      expect(winner.name, m.title).toBe(yesWins ? 'Yes' : 'No');
      expect(m.resolution!.state).toBe('resolved');
    }
  });

  it('always has an open Bitcoin market, and stays a pure function of the seed, time and path', () => {
    const prices = fakePrices(() => NOW + 10 * 24 * HOUR);
    for (let at = NOW; at < NOW + 3 * 24 * HOUR; at += 5 * HOUR + 7 * 60_000) {
      const w = new SimWorld('coherent', 'realistic', prices);
      const btc = VENUE_IDS.flatMap((v) => w.snapshot(v, at, at).markets).filter((m) => m.coinIds.includes('1') && m.status === 'open');
      expect(btc.length, new Date(at).toISOString()).toBeGreaterThan(0);
    }
    const a = new SimWorld('coherent', 'realistic', prices).snapshot('polymarket', NOW, NOW);
    const b = new SimWorld('coherent', 'realistic', prices).snapshot('polymarket', NOW, NOW);
    expect(a).toEqual(b);
  });

  it('does not list a price question before its anchor price exists', () => {
    const w = new SimWorld('coherent', 'fast', fakePrices(() => 0));
    expect(coinMarkets(w, NOW)).toEqual([]);
  });
});

describe('on the real simulated market', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await freshDatabase();
  });
  afterAll(async () => testDb.drop());

  it("reads the market's own bars: Bitcoin's daily question sits near the simulated BTC price", async () => {
    const sim = await startSmallMarket(testDb.database.db, NOW);
    const prices = coinPricesFromMarket(sim.market, 1);
    const quote = sim.market.quote('1')!;
    expect(prices.priceAt('1', NOW + 60_000)).toBeNull(); // the future is unknown
    const hourAgo = Math.floor((NOW - HOUR) / 60_000) * 60_000;
    const bar = sim.market.candles('1', '1H').find((c) => c.t * 1000 === hourAgo + 60_000)!;
    expect(prices.priceAt('1', bar.t * 1000)).toBe(bar.o);
    const btc = new SimWorld('coherent', 'realistic', prices).snapshot('polymarket', NOW, NOW).markets.filter((m) => m.coinIds.includes('1') && m.status === 'open');
    expect(btc.length).toBeGreaterThan(0);
    for (const m of btc) expect(Math.abs(thresholdOf(m) / quote.priceUsd - 1)).toBeLessThan(0.2);
  });

  it('prices an open question from the last quote between two ticks too (it read no price there and sat near 50 %)', async () => {
    const sim = await startSmallMarket(testDb.database.db, NOW);
    const prices = coinPricesFromMarket(sim.market, 1);
    const asOf = sim.market.quote('1')!.asOfMs;
    const yesOf = (at: number) =>
      coinMarkets(new SimWorld('coherent', 'realistic', prices), at)
        .filter((m) => m.status === 'open')
        .map((m) => m.outcomes.find((o) => o.name === 'Yes')!.probability);
    const onTick = yesOf(asOf);
    const between = yesOf(asOf + 5_000); // the ingest runs on its own timer, seconds off the market's ticks
    expect(onTick.some((p) => Math.abs(p - 50) > 10)).toBe(true);
    // venue noise moves a quote a little in 5 s; losing the price moved every one to about 50
    between.forEach((p, i) => expect(Math.abs(p - onTick[i]!), `market ${i}`).toBeLessThan(5));
  });
});
