import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findWallet } from '../../src/storage/books-repo.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { TEST_DATABASE_URL } from '../support/db.js';
import { futuresHelpers } from '../support/futures.js';

describe.skipIf(!TEST_DATABASE_URL)('write contention (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { agentRpm: 100_000, tradeWpm: 100_000 } });
  }, 180_000);
  afterAll(async () => t?.close());
  const { post, open, journalBalances } = futuresHelpers(() => t);

  it('answers 503 contention_retry while another writer holds the position row; the retry succeeds', async () => {
    t.market.set('1', 50_000, t.clock.now());
    const { key, keyId } = await t.newKey();
    const p = await open(key, { coinId: '1', side: 'long', leverage: 2, marginMusd: 100 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = t.ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`select id from futures_positions where id = ${p.id} for update`);
      locked();
      await held;
    });
    await isLocked;
    try {
      const closing = await post(key, 'close', { positionId: p.id, idempotencyKey: 'contended' });
      expect(closing.statusCode).toBe(503);
      expect(closing.json().error).toBe('contention_retry');
      expect(closing.headers['retry-after']).toBe('1');
      const adding = await post(key, 'open', { coinId: '1', side: 'long', leverage: 2, marginMusd: 100, idempotencyKey: 'contended-add' });
      expect(adding.statusCode).toBe(503);
    } finally {
      release();
      await holder;
    }
    const retry = await post(key, 'close', { positionId: p.id, idempotencyKey: 'contended' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().idempotentReplay).toBeUndefined();
    expect((await findWallet(t.ctx.database.db, keyId))!.frozenFutures.toNumber()).toBe(0);
    await journalBalances();
  });
});
