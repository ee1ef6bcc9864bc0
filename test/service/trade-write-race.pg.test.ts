import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { intentHash } from '../../src/services/idempotency.js';
import { runTradeWrite } from '../../src/services/trade-write.js';
import { idempotencyRecords } from '../../src/storage/schema.js';
import { agentKey } from '../support/arena.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';

/**
 * One idempotencyKey sent to two API processes at once (a client's retry after a timeout, routed
 * elsewhere): one process may refuse it at its mark while the other's write commits. The refusal
 * must not be the answer for a write that ran (PostgreSQL: PGlite has one process).
 */
describe.skipIf(!TEST_DATABASE_URL)('a refusal racing its idempotent twin on another process (PostgreSQL)', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await freshDatabase();
  }, 60_000);
  afterAll(async () => testDb?.drop());

  it("replays the twin's answer once its write commits, instead of answering refused", async () => {
    const db = testDb.database.db;
    const other = (await testDb.openAnother()).db;
    const keyId = await agentKey(db, 'Twin');
    await runTradeWrite(db, { read: { keyId }, decide: () => ({ noWrite: true, statusCode: 200, body: {}, result: null }) }); // the book exists
    const idempotency = { idempotencyKey: 'twin-1', route: 'POST /api/agent/futures/open', body: { coinId: '1', marginMusd: 10 } };

    // the twin, on the other "process": holds the book's lock and has written its record, not yet committed
    let commitTwin!: () => void;
    let twinLocked!: () => void;
    const locked = new Promise<void>((resolve) => (twinLocked = resolve));
    const twin = other.transaction(async (tx) => {
      await tx.execute(sql`select 1 from wallets where key_id = ${keyId} for update`);
      await tx.insert(idempotencyRecords).values({ keyId, idempotencyKey: 'twin-1', route: idempotency.route, requestHash: intentHash(idempotency), statusCode: 201, response: { opened: true } });
      twinLocked();
      await new Promise<void>((resolve) => (commitTwin = resolve));
    });
    await locked;

    let decisions = 0;
    const answer = await runTradeWrite(db, {
      read: { keyId },
      idempotency,
      decide: () => {
        decisions += 1;
        setTimeout(commitTwin, 100); // the twin commits while this one answers
        throw new ApiError(422, 'futures_entry_blocked', 'refused at this process’s mark');
      },
    });
    await twin;
    expect(decisions).toBe(1); // decided once; the second look found the twin's record
    expect(answer).toMatchObject({ replay: true, statusCode: 200, body: { opened: true, idempotentReplay: true } });
  }, 30_000);
});
