import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { testConfig, type Config } from '../../src/config/env.js';
import { SCOPES, type Scope } from '../../src/domain/api-keys.js';
import type { AppContext } from '../../src/http/context.js';
import { createKey } from '../../src/services/keys.js';
import { ManualClock } from '../../src/util/clock.js';
import { freshDatabase, type TestDatabase } from './db.js';
import { FixedMarketFeed } from './fixed-market.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  testDb: TestDatabase;
  clock: ManualClock;
  market: FixedMarketFeed;
  /** Mints a key straight through the service layer; returns the raw key and its id. */
  newKey(scopes?: Scope[], extra?: { agentName?: string; public?: boolean }): Promise<{ key: string; keyId: number }>;
  close(): Promise<void>;
}

export interface TestAppOptions extends Partial<Omit<AppDeps, 'config' | 'database' | 'adminToken' | 'market'>> {
  /** Prices the test drives by hand (default: an empty FixedMarketFeed with BTC, ETH, USDT, SOL). */
  market?: FixedMarketFeed;
  config?: Partial<Config>;
  /** Reuse a database (e.g. a second app instance on the same PostgreSQL). */
  testDb?: TestDatabase;
}

/** A whole app on a fresh database, driven with inject(); time is a manual clock. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = options.testDb ?? (await freshDatabase());
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 30));
  const config = testConfig({ ledgerFlushMs: 20, ...options.config });
  const market = options.market ?? new FixedMarketFeed();
  const { config: _c, testDb: _t, market: _m, ...deps } = options;
  const app = await buildApp({ checkResponses: true, ...deps, config, database: testDb.database, adminToken: ADMIN_TOKEN, clock, market });
  await app.ready();
  return {
    app,
    ctx: app.ctx,
    testDb,
    clock,
    market,
    async newKey(scopes = [...SCOPES], extra = {}) {
      const created = await createKey(testDb.database.db, { userId: 'tester', scopes, ...extra });
      return { key: created.key, keyId: created.keyId };
    },
    async close() {
      await app.close();
      if (!options.testDb) await testDb.drop();
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** GET /api/agent/me with `key` on one app instance. */
export const agentMe = (t: TestApp, key: string) => t.app.inject({ url: '/api/agent/me', headers: bearer(key) });
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };
