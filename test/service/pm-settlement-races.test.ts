import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forcePmResolution } from '../../src/pm/api.js';
import { settlePmPositions } from '../../src/services/pm-trading-settlement.js';
import { queryRows, type Database } from '../../src/storage/db.js';
import { bearer } from '../support/app.js';
import { deferred } from '../support/deferred.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { tradeableBinaryMarkets } from '../support/pm-markets.js';

let t: PmTestApp;
beforeAll(async () => {
  t = await createPmApp({ config: { agentRpm: 1_000_000, tradeWpm: 1_000_000 } });
}, 180_000);
afterAll(async () => t?.close());

/** The database with its first transaction() held until `gate` opens (the interleaving point). */
function pausedAtFirstTransaction(database: Database, reached: () => void, gate: Promise<void>): Database {
  let first = true;
  const db = new Proxy(database.db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== 'transaction') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        if (first) {
          first = false;
          reached();
          await gate;
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ...database, db } as Database;
}

describe('PM settlement beside the ingest (they run side by side: other lanes, other processes)', () => {
  it('a market the ingest resolves after settlement listed it as unresolved for 30 days is paid as resolved, not refunded', async () => {
    const m = (await tradeableBinaryMarkets(t.ctx.database.db))[0]!;
    const { key } = await t.newKey(['read', 'trade:pm']);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/agent/pm/open',
      headers: bearer(key),
      payload: { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 100, idempotencyKey: 'race-stale-1' },
    });
    expect(opened.statusCode).toBe(201);
    const position = opened.json().position as { id: number };
    // the venue stopped listing it and its end passed 31 days ago: the unresolved-void fallback applies …
    await t.ctx.database.db.execute(sql`update pm_markets set end_at = ${new Date(t.clock.now() - 31 * 86_400_000).toISOString()}::timestamptz where source = ${m.source} and slug = ${m.slug}`);

    // … settlement lists it as stale; before its batch runs, the ingest stores the venue's resolution: Yes won
    const reached = deferred();
    const gate = deferred();
    const settling = settlePmPositions(pausedAtFirstTransaction(t.ctx.database, () => reached.resolve(), gate.promise), t.clock.now());
    await reached.promise;
    expect(await forcePmResolution(t.ctx.database, t.clock, { source: m.source, slug: m.slug, winnerExternalMarketId: m.yesId })).toBe(true);
    gate.resolve();
    expect(await settling).toBe(0); // not refunded
    expect(await settlePmPositions(t.ctx.database, t.clock.now())).toBe(1); // the next run pays it as resolved

    const [row] = await queryRows<{ status: string; voidReason: string | null; payout: string; shares: string }>(
      t.ctx.database.db,
      sql`select status, void_reason as "voidReason", payout_musd::text as payout, shares_musd::text as shares from pm_positions where id = ${position.id}`,
    );
    expect(row).toMatchObject({ status: 'won', voidReason: null });
    expect(Number(row!.payout)).toBe(Number(row!.shares));
    expect(Number(row!.payout)).toBeGreaterThan(100);
  });
});
