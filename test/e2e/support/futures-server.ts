/**
 * A test-only server process for the crash test: the real app on a file-backed PGlite
 * under DATA_DIR, with a market whose BTC price is always fresh. Prints "ready <port>".
 */
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../../src/config/env.js';
import type { MarketFeed } from '../../../src/marketdata/feed.js';
import { openDatabase, pgliteDirFor } from '../../../src/storage/db.js';
import { initPgliteDir } from '../../../src/storage/pglite-init.js';
import { DEFAULT_TEST_COINS } from '../../support/fixed-market.js';

const market: MarketFeed = {
  source: 'sim',
  coin: (id) => DEFAULT_TEST_COINS.find((c) => c.coinId === id) ?? null,
  price: (coinId) => (coinId === '1' ? { coinId, priceUsd: 50_000, asOfMs: Date.now() } : null),
  priceRange: () => null,
};

const pgliteDir = pgliteDirFor(process.env.DATA_DIR!);
await initPgliteDir(pgliteDir); // a first start copies the ready database, as the real server does
const database = await openDatabase({ databaseUrl: null, pgliteDir });
const app = await buildApp({
  config: testConfig({ agentRpm: 1e9, tradeWpm: 1e9, ledgerFlushMs: 20 }),
  database,
  adminToken: process.env.ADMIN_TOKEN!,
  market,
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address() as { port: number };
process.stdout.write(`ready ${address.port}\n`);
