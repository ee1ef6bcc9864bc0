import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PROFILE, DEFAULT_SIM_SEED } from '../../src/config/env.js';
import { simMeta } from '../../src/services/sim-market-boot.js';
import { FileSimStore } from '../../src/storage/sim-file-store.js';
import { buildSimTemplate, copySimTemplate } from '../../src/storage/sim-template.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { SMALL_COINS_FILE, smallUniverse, startSmallMarket } from '../support/small-market.js';

/**
 * The history the build prepares (dist/sim-template): a first start that copies it serves the
 * same market as one whose own first start had happened at the build, and a copy that does not
 * fit (another seed, an old build) is never used.
 */
const BUILT_AT = Date.UTC(2026, 10, 1, 12, 0, 0);
const coins = smallUniverse();
const meta = simMeta(coins, DEFAULT_SIM_SEED, DEFAULT_SIM_PROFILE);
let work: string;
let template: string;
let testDb: TestDatabase;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pa-sim-template-'));
  template = join(work, 'template');
  expect(await buildSimTemplate(BUILT_AT, template, SMALL_COINS_FILE)).toBe('built');
  testDb = await freshDatabase();
}, 60_000);
afterAll(async () => {
  await testDb?.drop();
  rmSync(work, { recursive: true, force: true });
});

describe('simulated history prepared at install', () => {
  it('is kept by a second build within a day, rebuilt after', async () => {
    expect(await buildSimTemplate(BUILT_AT + 3600_000, template, SMALL_COINS_FILE)).toBe('current');
    const later = join(work, 'later');
    expect(await buildSimTemplate(BUILT_AT, later, SMALL_COINS_FILE)).toBe('built');
    expect(await buildSimTemplate(BUILT_AT + 25 * 3600_000, later, SMALL_COINS_FILE)).toBe('built');
  });

  it('a first start resumes from the copy: the same market as a first start made at the build', async () => {
    const copied = join(work, 'copied');
    expect(copySimTemplate(copied, meta, template)).toBe(true);
    expect(copySimTemplate(copied, meta, template)).toBe(false); // a checkpoint is there now
    expect(existsSync(join(copied, 'template.json'))).toBe(false);

    const startMs = BUILT_AT + 45 * 60_000;
    const fromCopy = await startSmallMarket(testDb.database.db, startMs, new FileSimStore(copied), DEFAULT_SIM_SEED);
    expect(fromCopy.start).toEqual({ kind: 'resume', caughtUpMinutes: 45 });

    const ownDir = join(work, 'own');
    await startSmallMarket(testDb.database.db, BUILT_AT, new FileSimStore(ownDir), DEFAULT_SIM_SEED); // its first start, at the build
    const own = await startSmallMarket(testDb.database.db, startMs, new FileSimStore(ownDir), DEFAULT_SIM_SEED);
    for (const coin of coins) {
      expect(fromCopy.market.price(coin.coinId)).toEqual(own.market.price(coin.coinId));
      expect(fromCopy.market.candles(coin.coinId, '1D')).toEqual(own.market.candles(coin.coinId, '1D'));
      expect(fromCopy.market.candles(coin.coinId, '3M')).toEqual(own.market.candles(coin.coinId, '3M'));
    }
  });

  it('is not copied for another seed, profile or coin universe', () => {
    expect(copySimTemplate(join(work, 'seed'), { ...meta, seed: 'other' }, template)).toBe(false);
    expect(copySimTemplate(join(work, 'profile'), { ...meta, profile: 'fast' }, template)).toBe(false);
    expect(copySimTemplate(join(work, 'coins'), simMeta(coins.slice(1), DEFAULT_SIM_SEED, DEFAULT_SIM_PROFILE), template)).toBe(false);
  });

  it('a copy older than the 90-day window is replaced by a back-fill', async () => {
    const old = join(work, 'old');
    expect(copySimTemplate(old, meta, template)).toBe(true);
    const started = await startSmallMarket(testDb.database.db, BUILT_AT + 91 * 86_400_000, new FileSimStore(old), DEFAULT_SIM_SEED);
    expect(started.start.kind).toBe('cold');
  });
});
