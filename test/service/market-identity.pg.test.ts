import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claimMarketIdentity, MarketIdentityError, processName } from '../../src/services/market-identity.js';
import type { Database } from '../../src/storage/db.js';
import { otherProcessNames } from '../../src/storage/presence-repo.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';
import { alpha, beta, gamma } from '../support/market-identities.js';

describe.skipIf(!TEST_DATABASE_URL)('claiming it on PostgreSQL', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await freshDatabase();
  });
  afterAll(async () => testDb?.drop());

  /** Waits until PostgreSQL no longer lists a closed process's connections. */
  const allGone = () => vi.waitFor(async () => expect(await otherProcessNames(testDb.database.db, '')).toEqual([]), { timeout: 10_000, interval: 50 });

  /** A "process": its own pool, its connections named as a server's would be. */
  const start = async (role: string, identity: Record<string, string>, pid: number, host = 'host') => {
    const name = processName(role, identity, pid, host);
    const database: Database = await testDb.openAnother({ applicationName: name });
    return { database, claim: () => claimMarketIdentity(database.db, identity, name) };
  };

  it('refuses a process whose settings differ from a connected one; lets the same settings in; a whole fleet may change together', async () => {
    const api = await start('api', alpha, 101);
    await api.claim();
    const worker = await start('worker', beta, 202);
    const refusal = await worker.claim().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MarketIdentityError);
    expect((refusal as Error).message).toMatch(/\(paper-arena [0-9a-f]{8} api 101@host\) serve another market: SIM_SEED alpha there, beta here/);
    await worker.database.close();
    const sameWorker = await start('worker', alpha, 203);
    await sameWorker.claim();
    // the operator moves both to new settings: the old ones gone, the new ones start side by side
    await api.database.close();
    await sameWorker.database.close();
    await allGone();
    const [newApi, newWorker] = [await start('api', gamma, 301), await start('worker', gamma, 302)];
    await newApi.claim();
    await newWorker.claim();
    await newApi.database.close();
    await newWorker.database.close();
    await allGone();
  });

  it('does not take its own connections for another process under a long host name (cut to 63 bytes)', async () => {
    const alone = await start('worker', beta, 1234567, 'ip-172-31-23-45.eu-west-1.compute.internal');
    await alone.claim();
    // the name as PostgreSQL stored it is the one the process compares with (it used to cut only one of them)
    expect(await otherProcessNames(testDb.database.db, '')).toEqual([processName('worker', beta, 1234567, 'ip-172-31-23-45.eu-west-1.compute.internal')]);
    await alone.database.close();
    await allGone();
  });
});
