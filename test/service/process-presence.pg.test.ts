import { afterAll, describe, expect, it } from 'vitest';
import { joinProcesses } from '../../src/services/process-presence.js';
import type { Database } from '../../src/storage/db.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';

/** Until `check` holds (NOTIFY is delivered asynchronously), at most 5 s. */
async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

/**
 * A serve process's book cache is valid only while no other process writes its PostgreSQL
 * database: two processes sharing one learn of each other, whichever starts first.
 */
describe.skipIf(!TEST_DATABASE_URL)('processes sharing a PostgreSQL database (serve book cache)', { timeout: 60_000 }, () => {
  let testDb: TestDatabase;
  const leaves: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const leave of leaves) await leave();
    await testDb?.drop();
  });
  const join = async (database: Database) => leaves.push(await joinProcesses(database, () => database.bookCache!.disable()));

  it('a serve alone keeps its cache; a second process turns both caches off, the first one too', async () => {
    testDb = await freshDatabase({ bookCache: true });
    const first = testDb.database;
    await join(first);
    await new Promise((resolve) => setTimeout(resolve, 300)); // its own hello comes back: not another process
    expect(first.bookCache!.enabled).toBe(true);
    const second = await testDb.openAnother();
    await join(second);
    expect(await eventually(() => !second.bookCache!.enabled)).toBe(true); // it heard the first answer `here`
    expect(await eventually(() => !first.bookCache!.enabled)).toBe(true); // the first heard its hello
    first.bookCache!.store(1, 'q', { row: 1 }, first.bookCache!.token(1));
    expect(first.bookCache!.get(1, 'q')).toBeUndefined();
  });
});
