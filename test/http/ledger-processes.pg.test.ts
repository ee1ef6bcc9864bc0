import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { TEST_DATABASE_URL } from '../support/db.js';

/**
 * Two API processes on one database, each with its own ledger writer. A quote answered by one
 * and the write sent after it to the other: the write counts as quoted (the quote's row is
 * stored before its answer; batched, it landed after the write and never counted).
 */
describe.skipIf(!TEST_DATABASE_URL)('quote on one process, write on another (PostgreSQL)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // reads' rows wait a minute: only rows stored before their answer are in the database in time
    a = await createTestApp({ config: { ledgerFlushMs: 60_000 } });
    b = await createTestApp({ testDb: { ...a.testDb, database: await a.testDb.openAnother() }, clock: a.clock, market: a.market, config: { ledgerFlushMs: 60_000 } });
    a.market.set('1', 50_000, a.clock.now());
  });
  afterAll(async () => {
    await b?.app.close();
    await b?.testDb.database.close();
    await a?.close();
  });

  it('counts the write as quoted in /performance', async () => {
    const { key } = await a.newKey(['read', 'trade:spot']);
    const quote = await a.app.inject({ method: 'POST', url: '/api/agent/spot/quote', headers: bearer(key), payload: { coinId: '1', side: 'buy', quantity: 0.01 } });
    expect(quote.statusCode).toBe(200);
    a.clock.advance(1_000);
    const order = await b.app.inject({
      method: 'POST',
      url: '/api/agent/spot/order',
      headers: bearer(key),
      payload: { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: 'across' },
    });
    expect(order.statusCode, order.body).toBe(200);
    const performance = (await a.app.inject({ url: '/api/agent/performance', headers: bearer(key) })).json();
    expect(performance.auditStats).toMatchObject({ quoteCount: 1, writeCount: 1, quoteBeforeTradeRate: 1 });
  });
});
if (!TEST_DATABASE_URL) console.log('ledger-processes: skipped (set TEST_DATABASE_URL to run it on PostgreSQL)');
