import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeScorecardRuns, liveScorecard } from '../../src/services/arena-scorecards.js';
import { queryRows, type Db } from '../../src/storage/db.js';
import { agentKey, trade, trades } from '../support/arena.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';

const AT = Date.UTC(2026, 10, 22, 12);

/** The text of a Drizzle `sql` query (its string chunks). */
function textOf(query: unknown): string {
  const chunks = (query as { queryChunks?: unknown[] })?.queryChunks ?? [];
  return chunks.flatMap((c) => (c as { value?: unknown }).value ?? []).filter((s): s is string => typeof s === 'string').join('');
}

/** `db`, calling `after` once each statement has answered — in a transaction too (so a test can commit a write between two reads). */
function watched(db: Db, after: (query: unknown) => Promise<void>): Db {
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t);
        if (prop === 'execute') return async (query: unknown) => {
          const result = await (value as (q: unknown) => Promise<unknown>).call(t, query);
          await after(query);
          return result;
        };
        if (prop === 'transaction') {
          return (callback: (tx: object) => Promise<unknown>, config?: unknown) =>
            (value as (cb: (tx: object) => Promise<unknown>, c?: unknown) => Promise<unknown>).call(t, (tx) => callback(wrap(tx)), config);
        }
        return typeof value === 'function' ? value.bind(t) : value;
      },
    });
  return wrap(db);
}

describe.skipIf(!TEST_DATABASE_URL)('scorecards read one snapshot (PostgreSQL)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await freshDatabase();
  }, 60_000);
  afterAll(() => t?.drop());

  /**
   * An agent with five decided spot trades, and its database as the scorecard sees it: once the
   * first read of closed_trades has answered, a sixth trade commits on another connection (a
   * settlement batch landing now).
   */
  async function tradeBetweenReads(name: string) {
    const db = t.database.db;
    const keyId = await agentKey(db, name);
    await trades(db, keyId, 'spot', [10, -5, 10, -5, 10], AT);
    let committed = false;
    const afterRead = async (query: unknown) => {
      if (committed || !textOf(query).includes('from closed_trades')) return;
      committed = true;
      await trade(db, keyId, 'spot', 7, AT + 1_000);
    };
    return { keyId, db: watched(db, afterRead), committed: () => committed };
  }

  it('a trade committing between the scorecard\'s reads is in all of them or in none (a torn run was frozen and hashed)', async () => {
    const db = t.database.db;
    const torn = await tradeBetweenReads('Torn');
    expect(await freezeScorecardRuns(torn.db, AT + 60_000)).toBe(1);
    expect(torn.committed()).toBe(true);
    const keyId = torn.keyId;
    const [run] = await queryRows<{ card: { sampleSize: number; metrics: { trade_count: number; decided_count: number } } }>(
      db,
      sql`select result_json -> 'scorecard' as card from arena_scorecard_runs where key_id = ${keyId}`,
    );
    // the realized series and the trade count come from one state of the books
    expect(run!.card.metrics.trade_count).toBe(run!.card.sampleSize);
    expect(run!.card.metrics.decided_count).toBe(run!.card.sampleSize);
  });

  it('the live scorecard reads one snapshot too (a torn card was served and cached for a minute)', async () => {
    const torn = await tradeBetweenReads('TornLive');
    const { response } = await liveScorecard(torn.db, torn.keyId);
    expect(torn.committed()).toBe(true);
    expect(response.scorecard!.metrics.trade_count).toBe(response.scorecard!.sampleSize);
    expect(response.scorecard!.sampleSize).toBe(5);
  });
});
