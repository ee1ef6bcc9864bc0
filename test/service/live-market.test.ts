import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlternativeMeClient } from '../../src/marketdata/live/alternative-me.js';
import { CoinGeckoClient } from '../../src/marketdata/live/coingecko.js';
import { LIVE_SOURCE, LiveMarket } from '../../src/marketdata/live/live-market.js';
import { LiveSampleFile } from '../../src/marketdata/live/sample-file.js';
import { recordTape } from '../../src/marketdata/replay/record.js';
import { readTape } from '../../src/marketdata/replay/tape.js';
import { ManualClock } from '../../src/util/clock.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { fastHttp, fixture, FixtureFetch, liveRoutes } from '../support/live-fixtures.js';
import { smallUniverse } from '../support/small-market.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function liveMarket(clock: ManualClock, f: FixtureFetch, extra: Partial<ConstructorParameters<typeof LiveMarket>[0]> = {}) {
  const http = fastHttp(f.fetch);
  return new LiveMarket({
    coins: smallUniverse(),
    prices: new CoinGeckoClient({ http }),
    fearGreed: new AlternativeMeClient(http),
    clock,
    pollMs: 60_000,
    mappingPages: 2,
    backfillCoins: 0,
    ...extra,
  });
}

describe('live market polling (recorded CoinGecko and alternative.me answers)', () => {
  let clock: ManualClock;
  let f: FixtureFetch;
  beforeEach(() => {
    clock = new ManualClock(NOW);
    f = new FixtureFetch(liveRoutes());
  });

  it('maps ids on the first poll, then polls the mapped ids; quotes carry the source figures', async () => {
    const live = liveMarket(clock, f);
    expect(await live.poll()).toEqual({ ok: true, coins: 7, errors: [] });
    expect(live.mappedCoins).toBe(7);
    expect(live.market.price('1')).toEqual({ coinId: '1', priceUsd: 97012, asOfMs: NOW });
    expect(live.market.quote('1839')).toMatchObject({ priceUsd: 912.4, change1h: 0.3, change24h: -0.9, change7d: 4.2, marketCapUsd: 127013000000, volume24hUsd: 1812000000 });
    expect(live.market.quote('1')!.sentiment).toEqual({ bullishVotes: 0, bearishVotes: 0, totalVotes: 0, bullishPct: null });
    expect(live.market.fearGreed()).toEqual({ value: 38, label: 'Fear' });
    expect(live.market.fiatRate('EUR')).toBeCloseTo(83430.3 / 97012, 10);
    expect(live.market.fiatRate('SEK')).toBeGreaterThan(5); // no source rate: the simulated fiat model
    expect(live.market.fiatRate('XYZ')).toBeNull();

    clock.advance(60_000);
    expect((await live.poll()).ok).toBe(true);
    expect(f.calls.filter((u) => u.includes('&ids='))).toHaveLength(1);
    const asked = new URL(f.calls.find((u) => u.includes('&ids='))!).searchParams.get('ids')!.split(',');
    expect(asked.sort()).toEqual(['binancecoin', 'bitcoin', 'bitcoin-cash', 'dogecoin', 'ethereum', 'solana', 'tether']);
    expect(live.market.price('1')).toEqual({ coinId: '1', priceUsd: 97105.5, asOfMs: NOW + 60_000 });
    // Fear & Greed and fiat rates are not asked again within their intervals.
    expect(f.calls.filter((u) => u.includes('fng'))).toHaveLength(1);
    expect(live.market.priceRange('1', NOW - 1000, NOW + 60_000)).toEqual({ low: 97012, high: 97105.5 });
    expect(live.market.candles('1', '1H').at(-1)).toMatchObject({ c: 97105.5 });
  });

  it('keeps the last good prices when the source fails or hangs, and recovers', async () => {
    const live = liveMarket(clock, f);
    await live.poll();
    f.down = true;
    clock.advance(60_000);
    const failed = await live.poll();
    expect(failed.ok).toBe(false);
    expect(failed.coins).toBe(0);
    expect(live.market.price('1')).toEqual({ coinId: '1', priceUsd: 97012, asOfMs: NOW });
    f.down = false;
    f.routes = [[/coins\/markets/, () => 'hang'], ...liveRoutes()];
    clock.advance(60_000);
    const slow = await live.poll();
    expect(slow.errors.join()).toMatch(/timed out/);
    expect(live.market.price('1')!.asOfMs).toBe(NOW);
    expect(live.status.failedPolls).toBe(2);
    f.routes = liveRoutes();
    clock.advance(60_000);
    expect((await live.poll()).ok).toBe(true);
    expect(live.market.price('1')).toEqual({ coinId: '1', priceUsd: 97105.5, asOfMs: NOW + 180_000 });
  });

  it('does not advance a coin the source stopped updating (same last_updated)', async () => {
    const live = liveMarket(clock, f);
    await live.poll();
    const frozen = fixture('coingecko/markets-ids.json') as { id: string; last_updated: string }[];
    frozen.find((r) => r.id === 'solana')!.last_updated = new Date(NOW - 20_000).toISOString(); // as in the first answer
    f.routes = [[/&ids=/, () => frozen], ...liveRoutes()];
    clock.advance(60_000);
    expect((await live.poll()).coins).toBe(6);
    expect(live.market.price('5426')).toEqual({ coinId: '5426', priceUsd: 141.22, asOfMs: NOW });
    expect(live.market.price('1')!.asOfMs).toBe(NOW + 60_000);
  });

  it('holds a wild print until a second poll confirms it; an old or earlier cache answer is not a price now', async () => {
    const live = liveMarket(clock, f);
    await live.poll();
    const stamped = (price: number, updatedMs: number) => () => {
      const rows = fixture('coingecko/markets-ids.json') as { id: string; current_price: number; last_updated: string }[];
      const btc = rows.find((r) => r.id === 'bitcoin')!;
      btc.current_price = price;
      btc.last_updated = new Date(updatedMs).toISOString();
      return rows;
    };
    const pollWith = async (price: number, updatedMs = clock.now() - 5_000) => {
      clock.advance(60_000);
      f.routes = [[/&ids=/, stamped(price, updatedMs)], ...liveRoutes()];
      await live.poll();
      return live.market.price('1')!;
    };
    const normal = await pollWith(97_100);
    expect(normal).toEqual({ coinId: '1', priceUsd: 97_100, asOfMs: clock.now() });
    // a tenfold print for one poll: not taken (the price keeps its time, so it turns stale rather than trade)
    const misprintAt = clock.now() + 60_000 - 5_000;
    expect(await pollWith(971_000, misprintAt)).toEqual(normal);
    // the same cached row served again is no second poll confirming it
    expect(await pollWith(971_000, misprintAt)).toEqual(normal);
    expect((await pollWith(97_200)).priceUsd).toBe(97_200);
    expect((await pollWith(1e308)).priceUsd).toBe(97_200);
    // a real move seen on two polls is taken on the second
    expect((await pollWith(60_000)).priceUsd).toBe(97_200);
    expect(await pollWith(60_500)).toEqual({ coinId: '1', priceUsd: 60_500, asOfMs: clock.now() });
    // an answer updated 3 h ago (another cache edge) or earlier than the one taken: not taken
    const before = live.market.price('1')!;
    expect(await pollWith(60_700, clock.now() + 60_000 - 3 * 3_600_000)).toEqual(before);
    expect(await pollWith(60_700, clock.now() - 130_000)).toEqual(before); // recent (3 min), but before the one taken
  });

  it('looks again, hourly, for a coin that had no price on the mapping pages (it stayed unpriced until a restart)', async () => {
    const unpricedBitcoin = () => {
      const rows = fixture('coingecko/markets-page-1.json') as { id: string; current_price: number | null }[];
      rows.find((r) => r.id === 'bitcoin')!.current_price = null;
      return rows;
    };
    f.routes = [[/order=market_cap_desc.*&page=1&/, unpricedBitcoin], ...liveRoutes()];
    const live = liveMarket(clock, f);
    await live.poll();
    expect(live.mappedCoins).toBe(6);
    expect(live.market.price('1')).toBeNull();
    f.routes = liveRoutes();
    clock.advance(60_000);
    await live.poll();
    expect(live.market.price('1')).toBeNull(); // not before the hour
    clock.advance(3_600_000);
    const fresh = () => (fixture('coingecko/markets-page-1.json') as { last_updated: string }[]).map((r) => ({ ...r, last_updated: new Date(clock.now() - 5_000).toISOString() }));
    f.routes = [[/order=market_cap_desc.*&page=1&/, fresh], ...liveRoutes()];
    await live.poll();
    expect(live.mappedCoins).toBe(7);
    expect(live.market.price('1')!.asOfMs).toBe(clock.now());
    clock.advance(60_000);
    await live.poll();
    expect(new URL(f.calls.filter((u) => u.includes('&ids=')).at(-1)!).searchParams.get('ids')!.split(',')).toContain('bitcoin');
  });

  it('does not take a Fear & Greed index published days ago (an old cache answer)', async () => {
    const live = liveMarket(clock, f);
    clock.advance(3 * 86_400_000); // the recorded index is from 2026-11-22
    const result = await live.poll();
    expect(result.errors.join(' ')).toMatch(/fear & greed: index published 2026-11-22T00:00:00.000Z, too old/);
    expect(live.market.fearGreed()).toBeNull();
  });

  it('a start with the source down serves nothing yet but keeps polling', async () => {
    f.down = true;
    const live = liveMarket(clock, f);
    expect((await live.poll()).ok).toBe(false);
    expect(live.market.price('1')).toBeNull();
    expect(live.market.candles('1', '1D')).toEqual([]);
    f.down = false;
    clock.advance(60_000);
    expect((await live.poll()).coins).toBe(7);
  });

  it('asks again, 30 minutes later, for the history of coins whose back-fill the source refused (it never did)', async () => {
    let refusing = true;
    f.routes = liveRoutes().map(([pattern, answer]) => [pattern, () => (refusing && pattern.source.includes('market_chart') ? { status: 429 } : answer())]);
    const warnings: string[] = [];
    const live = liveMarket(clock, f, { backfillCoins: 2, sleep: async () => undefined, log: (level, message) => level === 'warn' && warnings.push(message) });
    const charts = () => f.calls.filter((u) => u.includes('/market_chart')).length;
    await live.poll();
    await live.backfillDone();
    expect(charts()).toBeGreaterThan(0);
    expect(live.market.candles('1', '3M')).toHaveLength(1);
    // rate-limited: the next coin is not asked back to back; one line says so
    expect(f.calls.filter((u) => u.includes('/coins/ethereum/market_chart'))).toEqual([]);
    expect(warnings.filter((w) => w.includes('back-fill'))).toEqual([expect.stringContaining('history back-fill failed for 1 coin(s), asked again in 30 min')]);

    refusing = false;
    const refused = charts();
    clock.advance(60_000);
    await live.poll();
    await live.backfillDone();
    expect(charts()).toBe(refused); // not on every poll
    clock.advance(30 * 60_000);
    await live.poll();
    await live.backfillDone();
    expect(live.market.candles('1', '3M')).toHaveLength(540);
    clock.advance(30 * 60_000);
    await live.poll();
    await live.backfillDone();
    // bitcoin done (not asked again); ethereum, which the source has no history for, is asked each half hour
    expect(f.calls.filter((u) => u.includes('/coins/bitcoin/market_chart'))).toHaveLength(refused + 2);
  });

  it('back-fills the top coins from market_chart so the long candle ranges are full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-backfill-'));
    dirs.push(dir);
    const file = new LiveSampleFile(join(dir, 'samples.ndjson'));
    const live = liveMarket(clock, f, { backfillCoins: 1, sleep: async () => undefined, file });
    await live.poll();
    await live.backfillDone();
    expect(f.calls.filter((u) => u.includes('/market_chart'))).toEqual([
      expect.stringContaining('/coins/bitcoin/market_chart?vs_currency=usd&days=90'),
      expect.stringContaining('/coins/bitcoin/market_chart?vs_currency=usd&days=1'),
    ]);
    const threeMonths = live.market.candles('1', '3M');
    expect(threeMonths).toHaveLength(540);
    expect(live.market.candles('1', '1D')).toHaveLength(288);
    expect(live.market.candles('1027', '3M')).toHaveLength(1); // not back-filled: only its own poll
    expect(threeMonths.at(-1)!.c).toBe(97012);

    // The history is stored at once: a restart has it without asking the source again.
    const restarted = liveMarket(clock, new FixtureFetch([]), { file });
    await restarted.restore();
    expect(restarted.market.candles('1', '3M')).toHaveLength(540);
    expect(restarted.market.candles('1', '3M').slice(0, 500)).toEqual(threeMonths.slice(0, 500).map((c) => ({ ...c, v: expect.closeTo(c.v, -3) })));
  });

  it('stores samples in DATA_DIR and restores them after a restart (prices stale until the next poll)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-samples-'));
    dirs.push(dir);
    const file = new LiveSampleFile(join(dir, 'live', 'samples.ndjson'));
    const first = liveMarket(clock, f, { file });
    await first.poll();
    clock.advance(60_000);
    await first.poll();
    const candles = first.market.candles('1', '1H');

    clock.advance(5 * 60_000);
    const second = liveMarket(clock, new FixtureFetch([]), { file });
    expect(await second.restore()).toBe(2);
    expect(second.market.price('1')).toEqual({ coinId: '1', priceUsd: 97105.5, asOfMs: NOW + 60_000 });
    expect(second.market.quote('5426')).toMatchObject({ change24h: -2.9, marketCapUsd: 77625000000 });
    expect(second.market.fearGreed()).toEqual({ value: 38, label: 'Fear' });
    // Prices come back exactly; the stored 24 h volume keeps 8 significant digits.
    const restored = second.market.candles('1', '1H').slice(0, candles.length);
    expect(restored.map(({ v: _v, ...ohlc }) => ohlc)).toEqual(candles.map(({ v: _v, ...ohlc }) => ohlc));
    restored.forEach((c, k) => expect(c.v / candles[k]!.v).toBeCloseTo(1, 6));
    // Restoring rewrote the file compactly; a second restart reads the same.
    const third = liveMarket(clock, new FixtureFetch([]), { file });
    await third.restore();
    expect(third.market.price('1')).toEqual(second.market.price('1'));
  });
});

describe('recording the live sources to a tape', () => {
  it('writes each poll; a failed poll records no prices, so the replay sees them go stale', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-record-'));
    dirs.push(dir);
    const clock = new ManualClock(NOW);
    const f = new FixtureFetch(liveRoutes());
    const live = liveMarket(clock, f);
    let step = 0;
    const out = join(dir, 'tape.ndjson');
    const count = await recordTape({
      market: live.market,
      advanceTo: async (t) => {
        clock.set(t);
        f.down = step++ === 1;
        await live.poll();
      },
      out,
      source: LIVE_SOURCE,
      startMs: NOW,
      minutes: 2,
      everySeconds: 60,
    });
    expect(count).toBe(3);
    const tape = await readTape(out);
    expect(tape.snapshots.map((s) => Object.keys(s.quotes).length)).toEqual([7, 0, 7]);
    expect(tape.snapshots[0]!.quotes['1']!.change7d).toBe(-3.21);
    expect(tape.snapshots[2]!.quotes['1']!.priceUsd).toBe(97105.5);
  });
});

describe('MARKET_DATA=live over HTTP', () => {
  let t: TestApp;
  let key: string;
  let clock: ManualClock;
  let f: FixtureFetch;
  let live: LiveMarket;
  beforeEach(async () => {
    clock = new ManualClock(NOW);
    f = new FixtureFetch(liveRoutes());
    live = liveMarket(clock, f);
    await live.poll();
    t = await createTestApp({ clock, marketReads: live.market });
    ({ key } = await t.newKey(['read']));
  });
  afterEach(() => t.close());
  const get = (url: string) => t.app.inject({ url, headers: bearer(key) });

  it('serves resolve, market context and candles from the live source; stale once the source stops', async () => {
    expect((await get('/api/agent/resolve?q=bnb')).json().match.coinId).toBe('1839');
    const context = await get('/api/agent/market/1');
    expect(context.statusCode).toBe(200);
    expect(context.json()).toMatchObject({
      price: { usd: 97012, change1h: 0.12, change24h: 1.84, change7d: -3.21, marketCapUsd: 1934812339456 },
      sentiment: { totalVotes: 0, bullishPct: null },
      fearGreed: { value: 38, label: 'Fear' },
      freshness: { status: 'fresh' },
      observation: { source: LIVE_SOURCE },
    });
    const candles = (await get('/api/agent/market/1/candles?range=1H&fiat=EUR')).json();
    expect(candles.rateToUsd).toBeCloseTo(83430.3 / 97012, 10);
    expect(candles.candles.at(-1).c).toBeCloseTo(97012 * candles.rateToUsd, 6);

    const gainers = (await t.app.inject({ url: '/api/coins/top-gainers?limit=2' })).json();
    expect(gainers.map((r: { ucid: string }) => r.ucid)).toEqual(['1027', '1']);

    f.down = true;
    clock.advance(60_000);
    await live.poll();
    clock.advance(70_000);
    const stale = (await get('/api/agent/market/1')).json();
    expect(stale.price.usd).toBe(97012);
    expect(stale.freshness).toMatchObject({ status: 'stale', ageSeconds: 130 });
    expect((await get('/api/agent/market/1/candles?range=1H')).json().candles.at(-1).c).toBe(97012);
  });
});
