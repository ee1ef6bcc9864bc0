import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CANDLE_RANGES, CANDLE_RANGE_NAMES, type Candle } from '../../src/domain/candles.js';
import { FileSimStore } from '../../src/storage/sim-file-store.js';
import { sqlSimStore } from '../../src/storage/market-repo.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { simMeta, startSimMarket } from '../../src/services/sim-market-boot.js';
import type { SimStore } from '../../src/storage/sim-store.js';
import { smallUniverse, startSmallMarket } from '../support/small-market.js';

/** Candles with the mean volume rounded: merged partial sums may differ in the last bit. */
const comparable = (candles: Candle[]) => candles.map((c) => ({ ...c, v: Number(c.v.toPrecision(12)) }));

const T0 = Date.UTC(2026, 10, 20, 9, 30, 0);
const MIN = 60_000;

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await freshDatabase();
});
afterAll(async () => testDb.drop());

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pa-sim-'));
  dirs.push(d);
  return d;
};

describe('simulated market start-up', () => {
  it('back-fills every candle range in full on a cold start', async () => {
    const sim = await startSmallMarket(testDb.database.db, T0, new FileSimStore(tempDir()));
    expect(sim.start.kind).toBe('cold');
    for (const range of CANDLE_RANGE_NAMES) {
      const candles = sim.market.candles('1', range);
      expect(candles).toHaveLength(CANDLE_RANGES[range].count);
      const step = CANDLE_RANGES[range].barSeconds;
      candles.slice(1).forEach((c, i) => expect(c.t - candles[i]!.t).toBe(step)); // oldest to newest, no gaps
      expect(candles.at(-1)!.t).toBeLessThanOrEqual(T0 / 1000);
      expect(candles.at(-1)!.t + step).toBeGreaterThan(T0 / 1000);
    }
    expect(sim.market.price('1')!.asOfMs).toBe(T0);
    expect(sim.market.fearGreed()!.value).toBeGreaterThanOrEqual(0);
  });

  it('makes the history again when the stored rows do not fit the settings they are recorded under (every start crashed on them)', async () => {
    const store = new FileSimStore(tempDir());
    await startSmallMarket(testDb.database.db, T0, store);
    const stored = (await store.load())!;
    // rows of 8 coins recorded under a 5-coin universe's settings (a process with another COINS_FILE wrote them)
    const five = smallUniverse().slice(0, 5);
    const forged: SimStore = { load: async () => ({ ...stored, ...simMeta(five, 'test-seed', 'realistic') }), save: async () => undefined };
    const sim = await startSimMarket({ db: testDb.database.db, store: forged, coins: five, seed: 'test-seed', profile: 'realistic', nowMs: T0 + MIN });
    expect(sim.start.kind).toBe('cold');
    expect(sim.market.candles('1', '1D')).toHaveLength(CANDLE_RANGES['1D'].count);
  });

  for (const storeKind of ['sql', 'file'] as const) {
    it(`restarts from the ${storeKind} checkpoint continuously: the same bars as a run that never stopped`, async () => {
      const db = testDb.database.db;
      const dir = tempDir();
      const store = () => (storeKind === 'sql' ? sqlSimStore(db) : new FileSimStore(dir));
      const first = await startSmallMarket(db, T0, store());
      first.market.advanceTo(T0 + 3 * MIN + 25_000);
      await first.checkpoint();
      first.market.advanceTo(T0 + 5 * MIN); // progress after the checkpoint is lost in the "crash"

      const restarted = await startSmallMarket(db, T0 + 11 * MIN + 40_000, store());
      expect(restarted.start).toEqual({ kind: 'resume', caughtUpMinutes: 8 });

      const uninterrupted = await startSmallMarket(testDb.database.db, T0, new FileSimStore(tempDir()));
      uninterrupted.market.advanceTo(T0 + 11 * MIN + 40_000);
      for (const range of CANDLE_RANGE_NAMES) {
        expect(comparable(restarted.market.candles('5426', range))).toEqual(comparable(uninterrupted.market.candles('5426', range)));
      }
      expect(restarted.market.price('1')).toEqual(uninterrupted.market.price('1'));
    });
  }

  it('gives the same prices for the same seed and different ones for another seed', async () => {
    const a = await startSmallMarket(testDb.database.db, T0, new FileSimStore(tempDir()), 'seed-a');
    const b = await startSmallMarket(testDb.database.db, T0, new FileSimStore(tempDir()), 'seed-a');
    const c = await startSmallMarket(testDb.database.db, T0, new FileSimStore(tempDir()), 'seed-b');
    expect(a.market.candles('1', '1D')).toEqual(b.market.candles('1', '1D'));
    expect(a.market.price('1')!.priceUsd).not.toBe(c.market.price('1')!.priceUsd);
  });

  it('moves prices every 10 seconds and reports the traded range', async () => {
    const sim = await startSmallMarket(testDb.database.db, T0, new FileSimStore(tempDir()));
    const p0 = sim.market.price('1')!;
    sim.market.advanceTo(T0 + 9_999);
    expect(sim.market.price('1')).toEqual(p0);
    sim.market.advanceTo(T0 + 10_000);
    const p1 = sim.market.price('1')!;
    expect(p1.asOfMs).toBe(T0 + 10_000);
    expect(p1.priceUsd).not.toBe(p0.priceUsd);
    sim.market.advanceTo(T0 + 2 * MIN + 30_000);
    const range = sim.market.priceRange('1', T0, T0 + 2 * MIN + 30_000)!;
    const oneMinute = sim.market.candles('1', '1H').slice(-3);
    expect(range.low).toBeCloseTo(Math.min(...oneMinute.map((c) => c.l)), 6);
    expect(range.high).toBeCloseTo(Math.max(...oneMinute.map((c) => c.h)), 6);
    expect(range.low).toBeLessThanOrEqual(sim.market.price('1')!.priceUsd);
    expect(sim.market.priceRange('unknown', T0, T0 + MIN)).toBeNull();
  });

  it('ignores a torn journal tail left by a crash', async () => {
    const db = testDb.database.db;
    const dir = tempDir();
    const first = await startSmallMarket(db, T0, new FileSimStore(dir));
    first.market.advanceTo(T0 + 2 * MIN);
    await first.checkpoint();
    const journal = join(dir, 'bars.journal');
    const size = statSync(journal).size;
    writeFileSync(journal, Buffer.concat([readFileSync(journal), Buffer.alloc(100, 7)])); // half-written row
    const restarted = await startSmallMarket(db, T0 + 2 * MIN, new FileSimStore(dir));
    expect(restarted.start).toEqual({ kind: 'resume', caughtUpMinutes: 0 });
    expect(restarted.market.candles('1', '1H')).toEqual(first.market.candles('1', '1H'));
    truncateSync(journal, size);
  });
});
