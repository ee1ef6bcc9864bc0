import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forcePmResolution } from '../../src/pm/api.js';
import { settlePmPositions } from '../../src/services/pm-trading-settlement.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { lockWalletsById, setWriteLockTimeout } from '../../src/storage/futures-repo.js';
import { bearer } from '../support/app.js';
import { TEST_DATABASE_URL } from '../support/db.js';
import { deferred } from '../support/deferred.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { tradeableBinaryMarkets } from '../support/pm-markets.js';

let t: PmTestApp;
describe.skipIf(!TEST_DATABASE_URL)('PM settlement beside the futures risk sweep, both locking several wallets (PostgreSQL)', () => {
  beforeAll(async () => {
    t = await createPmApp({ config: { agentRpm: 1_000_000, tradeWpm: 1_000_000 } });
  }, 180_000);
  afterAll(async () => t?.close());

  it('takes the wallets in id order as the sweep does: both finish (they deadlocked, and the settlement run failed)', async () => {
    const m = (await tradeableBinaryMarkets(t.ctx.database.db))[0]!;
    const walletIds: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const { key, keyId } = await t.newKey(['read', 'trade:pm']);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/agent/pm/open',
        headers: bearer(key),
        payload: { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 20, idempotencyKey: `lock-order-${i}` },
      });
      expect(res.statusCode).toBe(201);
      walletIds.push((await findWallet(t.ctx.database.db, keyId))!.id);
    }
    walletIds.sort((a, b) => a - b);
    await forcePmResolution(t.ctx.database, t.clock, { source: m.source, slug: m.slug, winnerExternalMarketId: m.yesId });

    // the sweep's batch transaction, paused inside its ascending lock scan (after the lowest wallet)
    const lockedFirst = deferred();
    const goOn = deferred();
    const sweep = t.ctx.database.db.transaction(async (tx) => {
      await setWriteLockTimeout(tx);
      await lockWalletsById(tx, [walletIds[0]!]);
      lockedFirst.resolve();
      await goOn.promise;
      await lockWalletsById(tx, walletIds.slice(1));
    });
    await lockedFirst.promise;
    const settlement = settlePmPositions(t.ctx.database, t.clock.now());
    // the settlement now waits for the lowest wallet (a lock wait, seen by PostgreSQL)
    const lockWaits = async () =>
      (await queryRows<{ n: number }>(t.ctx.database.db, sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0]!.n;
    await expect.poll(lockWaits, { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
    goOn.resolve();
    const outcomes = await Promise.allSettled([sweep, settlement]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseFulfilledResult<number>).value).toBe(8);
  });
});
