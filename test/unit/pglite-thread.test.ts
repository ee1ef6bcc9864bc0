import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteThread, type PgliteThread } from '../../src/storage/pglite-thread.js';
import { isEngineFatal } from '../../src/storage/pglite-thread-protocol.js';
import { sqlStateOf } from '../../src/storage/sql-state.js';

/** PGlite on its own thread (src/storage/pglite-thread.ts) behaves like the in-process engine it replaced. */
let db: PgliteThread;

beforeAll(async () => {
  db = await openPgliteThread('memory://');
  await db.exec('create table t (id int primary key, v text)');
}, 60_000);
afterAll(async () => {
  await db?.close();
});

const ids = async () => (await db.query<{ id: number }>('select id from t order by id')).rows.map((r) => r.id);

describe('PGlite thread', () => {
  it('answers rows in object and array mode, with parameters', async () => {
    await db.query('insert into t values ($1, $2), ($3, $4)', [1, 'a', 2, 'b']);
    expect((await db.query('select id, v from t order by id')).rows).toEqual([{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    expect((await db.query('select id, v from t where id = $1', [2], { rowMode: 'array' })).rows).toEqual([[2, 'b']]);
  });

  it('answers timestamps, dates and intervals as text, the way Drizzle reads them', async () => {
    const row = { at: '2026-01-02 03:04:05+00', day: '2026-01-02', span: '00:05:00', days: ['2026-01-02', '2026-01-03'] };
    const sql = `select '2026-01-02T03:04:05Z'::timestamptz as at, '2026-01-02'::date as day, '5 minutes'::interval as span, array['2026-01-02'::date, '2026-01-03'] as days`;
    expect((await db.query(sql, [], { parsers: {} })).rows).toEqual([row]);
    expect((await db.query(sql)).rows).toEqual([row]);
  });

  it('passes the SQLSTATE of a failed statement and stays usable', async () => {
    const error = await db.query('insert into t values (1, $1)', ['dup']).catch((e: unknown) => e);
    expect(sqlStateOf(error)).toBe('23505');
    expect((error as { constraint?: string }).constraint).toBe('t_pkey');
    expect(await ids()).toEqual([1, 2]);
  });

  it('commits a transaction, rolls one back when its callback throws, and keeps other statements out of it', async () => {
    await db.transaction(async (tx) => {
      await tx.query('insert into t values (3, $1)', ['c']);
    });
    let outside: Promise<unknown> | null = null;
    const failed = await db
      .transaction(async (tx) => {
        await tx.query('insert into t values (4, $1)', ['d']);
        // Sent while the transaction is open: it must run after it, not inside it.
        outside = db.query('insert into t values (5, $1)', ['e']);
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('decided against it');
      })
      .catch((e: Error) => e.message);
    await outside;
    expect(failed).toBe('decided against it');
    expect(await ids()).toEqual([1, 2, 3, 5]);
  });

  it('delivers a NOTIFY before the reply of the statement that committed it', async () => {
    const seen: string[] = [];
    await db.listen('thread_test', (payload) => seen.push(payload));
    await db.query(`select pg_notify('thread_test', 'x')`);
    expect(seen).toEqual(['x']);
  });

  it('leaves the calling thread free while a statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 10);
    try {
      await db.query('select pg_sleep(0.5)');
    } finally {
      clearInterval(timer);
    }
    // In-process PGlite runs the statement synchronously: no timer fires until it ends.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('rejects every call once the database thread is closed, without reporting it lost', async () => {
    const lost: Error[] = [];
    const other = await openPgliteThread('memory://', { onLost: (error) => lost.push(error) });
    await other.close();
    await expect(other.query('select 1')).rejects.toThrow(/closed|exited/);
    expect(lost).toEqual([]);
  });

  it('reports a thread that stops on its own once, and rejects the statement it was running and every later one', async () => {
    const lost: Error[] = [];
    // a small JavaScript heap: a result far larger than it stops the thread (out of memory)
    const other = await openPgliteThread('memory://', { resourceLimits: { maxOldGenerationSizeMb: 48 }, onLost: (error) => lost.push(error) });
    expect((await other.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await expect(other.query(`select repeat('x', 1000000) from generate_series(1, 400)`)).rejects.toThrow();
    await expect(other.query('select 1')).rejects.toThrow();
    expect(lost).toHaveLength(1);
    await other.close();
    expect(lost).toHaveLength(1);
  }, 60_000);

  it('stops the thread on a WebAssembly trap or an engine exit, not on a statement error', async () => {
    expect(isEngineFatal(new WebAssembly.RuntimeError('unreachable'))).toBe(true);
    expect(isEngineFatal(Object.assign(new Error('Program terminated with exit(1)'), { name: 'ExitStatus' }))).toBe(true);
    const statementError = await db.query('select 1/0').catch((e: unknown) => e);
    expect(isEngineFatal(statementError)).toBe(false);
    expect(isEngineFatal(new Error('other'))).toBe(false);
    expect(isEngineFatal(null)).toBe(false);
  });
});
