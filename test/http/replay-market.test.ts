import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, testConfig } from '../../src/config/env.js';
import { startMarketSource } from '../../src/services/market-source-boot.js';
import { recordTape } from '../../src/marketdata/replay/record.js';
import { ReplayMarket } from '../../src/marketdata/replay/replay-market.js';
import { readTape, TapeError, type Tape } from '../../src/marketdata/replay/tape.js';
import type { RunningSimMarket } from '../../src/services/sim-market-boot.js';
import { ManualClock } from '../../src/util/clock.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { smallUniverse, startSmallMarket } from '../support/small-market.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const START = Date.UTC(2026, 10, 22, 12, 1, 0);
const dir = mkdtempSync(join(tmpdir(), 'replay-'));
const tapePath = join(dir, 'tape.ndjson');
let testDb: TestDatabase;
let sim: RunningSimMarket;
let tape: Tape;
/** The sim's BTC price at each recorded instant, taken while recording. */
const btcSeen = new Map<number, number>();
let fearGreedAtStart: unknown;

beforeAll(async () => {
  testDb = await freshDatabase();
  sim = await startSmallMarket(testDb.database.db, NOW);
  const count = await recordTape({
    market: sim.market,
    advanceTo: (t) => {
      sim.market.advanceTo(t);
      btcSeen.set(t, sim.market.price('1')!.priceUsd);
      if (t === START) fearGreedAtStart = sim.market.fearGreed();
    },
    out: tapePath,
    source: 'sim:test-seed',
    startMs: START,
    minutes: 5,
    everySeconds: 10,
  });
  expect(count).toBe(31);
  tape = await readTape(tapePath);
});
afterAll(async () => {
  await testDb.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('market tape', () => {
  it('records a header and one snapshot of every coin per step, with Fear & Greed and fiat rates', () => {
    expect(tape.header).toMatchObject({ tape: 'paper-arena.market-tape.v1', source: 'sim:test-seed', startMs: START, endMs: START + 300_000, coins: smallUniverse().length, everySeconds: 10 });
    expect(tape.snapshots).toHaveLength(31);
    const first = tape.snapshots[0]!;
    expect(first.tMs).toBe(START);
    expect(Object.keys(first.quotes).sort()).toEqual(smallUniverse().map((c) => c.coinId).sort());
    expect(first.quotes['1']!.priceUsd).toBeCloseTo(btcSeen.get(START)!, 6);
    expect(first.quotes['1']!.bullishVotes).toEqual(expect.any(Number));
    expect(first.fearGreed).toEqual(fearGreedAtStart);
    expect(first.fiat!.EUR).toBeGreaterThan(0);
    expect(tape.snapshots[1]!.fiat).toBeNull(); // fiat rates once a minute
  });

  it('rejects a malformed tape naming the line', async () => {
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"t":1000,"q":{"1":[100]}}\n{"t":2000,"q":{"1":[-5]}}\n');
    await expect(readTape(bad)).rejects.toThrow(TapeError);
    await expect(readTape(bad)).rejects.toThrow(/bad\.ndjson:2: q\.1\[0\] must be a positive price/);
    await expect(readTape(join(dir, 'missing.ndjson'))).rejects.toThrow(/cannot read tape/);
  });
});

describe('replay', () => {
  it('plays the tape on tape time at the chosen speed, the same prices every run', () => {
    const runs = [1, 2].map(() => {
      const wall = new ManualClock(Date.UTC(2030, 0, 1));
      const replay = new ReplayMarket(smallUniverse(), tape, { speed: 60, wall });
      const seen: number[] = [replay.market.price('1')!.priceUsd];
      expect(replay.clock.now()).toBe(START);
      for (let s = 0; s < 5; s += 1) {
        wall.advance(1000); // one wall second = one tape minute
        replay.advance();
        seen.push(replay.market.price('1')!.priceUsd);
      }
      expect(replay.clock.now()).toBe(START + 300_000);
      expect(replay.progress).toEqual({ played: 31, total: 31, finished: true });
      return seen;
    });
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]!.map((p, k) => p / btcSeen.get(START + k * 60_000)!)).toEqual(runs[0]!.map(() => expect.closeTo(1, 10)));
  });

  it('starts from MARKET_DATA=replay:<file> with the replay clock as the service clock', async () => {
    const lines: string[] = [];
    const config = testConfig({ marketData: { kind: 'replay', file: tapePath }, replaySpeed: 5 });
    const source = await startMarketSource(config, testDb.database, (line) => lines.push(line));
    try {
      expect(source.market.source).toBe('replay');
      expect(source.checkpoint).toBeUndefined();
      expect(source.clock.now() - START).toBeGreaterThanOrEqual(0);
      expect(source.clock.now() - START).toBeLessThan(300_000);
      expect(source.market.price('1')!.priceUsd).toBe(tape.snapshots[0]!.quotes['1']!.priceUsd);
      expect(lines.join('\n')).toMatch(/replaying 31 snapshots \(5 min of tape from 2026-11-22T12:01:00.000Z\) at 5x/);
    } finally {
      source.stop();
    }
    await expect(startMarketSource(testConfig({ marketData: { kind: 'replay', file: join(dir, 'nope.ndjson') } }), testDb.database, () => undefined)).rejects.toThrow(/cannot read tape/);
  });

  it('validates REPLAY_SPEED', () => {
    expect(loadConfig({}).replaySpeed).toBe(1);
    expect(loadConfig({ REPLAY_SPEED: '12.5' }).replaySpeed).toBe(12.5);
    for (const bad of ['0', '-1', 'fast', '100000']) expect(() => loadConfig({ REPLAY_SPEED: bad })).toThrow(/REPLAY_SPEED must be a number above 0/);
  });
});

describe('MARKET_DATA=replay over HTTP', () => {
  let t: TestApp;
  let key: string;
  let wall: ManualClock;
  let replay: ReplayMarket;
  beforeAll(async () => {
    wall = new ManualClock(Date.UTC(2030, 0, 1));
    replay = new ReplayMarket(smallUniverse(), tape, { speed: 10, wall });
    t = await createTestApp({ testDb, clock: replay.clock, marketReads: replay.market });
    ({ key } = await t.newKey(['read']));
  });
  afterAll(() => t.close());
  const get = (url: string) => t.app.inject({ url, headers: bearer(key) });

  it('serves the tape through resolve, market context and candles, on tape time', async () => {
    wall.advance(12_000); // 120 s of tape at 10x
    replay.advance();
    expect((await get('/api/agent/resolve?q=sol')).json().match.coinId).toBe('5426');
    const context = (await get('/api/agent/market/1')).json();
    const snapshot = tape.snapshots[12]!;
    expect(context.price.usd).toBe(snapshot.quotes['1']!.priceUsd);
    expect(context.price.change24h).toBeCloseTo(snapshot.quotes['1']!.change24h!, 3);
    expect(context.fearGreed).toEqual({ ...snapshot.fearGreed, fetchedAt: null });
    expect(context.freshness).toMatchObject({ status: 'fresh', ageSeconds: 0 });
    expect(context.observation.source).toBe('replay');
    expect(context.asOf).toBe(new Date(START + 120_000).toISOString());
    const candles = (await get('/api/agent/market/1/candles?range=1H')).json().candles;
    expect(candles.map((c: { t: number }) => c.t)).toEqual([0, 1, 2].map((k) => (START + k * 60_000) / 1000));
    expect(candles.at(-1).c).toBe(snapshot.quotes['1']!.priceUsd);
  });

  it('holds the last prices after the tape ends, and they turn stale', async () => {
    wall.advance(60_000); // tape end + 3 min
    replay.advance();
    const context = (await get('/api/agent/market/1')).json();
    expect(context.price.usd).toBe(tape.snapshots.at(-1)!.quotes['1']!.priceUsd);
    expect(context.freshness).toMatchObject({ status: 'stale', ageSeconds: 300 + 420 - 300 });
  });
});
