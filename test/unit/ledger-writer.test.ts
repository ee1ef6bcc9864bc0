import { afterEach, describe, expect, it, vi } from 'vitest';
import { LedgerWriter, type LedgerProblem, type LedgerStore } from '../../src/ledger/writer.js';
import type { LedgerInsert } from '../../src/storage/ledger-repo.js';

// Issue 12 item 1 / Deliver "ledger fault isolation": one bad row never stops the ledger.
let seq = 0;
function row(keyId: number, extra: Partial<LedgerInsert> = {}): LedgerInsert {
  seq += 1;
  return {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    keyId,
    method: 'GET',
    endpoint: '/api/agent/me',
    eventType: 'read',
    ledgerStatus: 'success',
    startedAt: new Date(0),
    ...extra,
  } as LedgerInsert;
}

class SqlError extends Error {
  constructor(readonly code: string) {
    super(`sql error ${code}`);
  }
}

/** A store that refuses any batch holding a row of key 666, like PostgreSQL refusing one bad row. */
function poisonableStore(refusal: () => Error) {
  const stored: LedgerInsert[] = [];
  let calls = 0;
  const store: LedgerStore = {
    async insert(rows) {
      calls += 1;
      if (rows.some((r) => r.keyId === 666)) throw refusal();
      stored.push(...rows);
    },
  };
  return { store, stored, calls: () => calls };
}

afterEach(() => vi.useRealTimers());

describe('LedgerWriter fault isolation', () => {
  it('drops a row the store refuses (SQLSTATE 22/23) and lands every other row of the batch', async () => {
    const { store, stored } = poisonableStore(() => Object.assign(new Error('wrapped'), { cause: new SqlError('22P05') }));
    const problems: LedgerProblem[] = [];
    const writer = new LedgerWriter(store, { flushMs: 60_000, onProblem: (p) => problems.push(p) });
    for (let i = 0; i < 20; i += 1) writer.enqueue(row(2));
    writer.enqueue(row(666, { endpoint: 'secret-contents' }));
    for (let i = 0; i < 20; i += 1) writer.enqueue(row(3));
    await writer.flush();
    expect(stored.filter((r) => r.keyId === 2)).toHaveLength(20);
    expect(stored.filter((r) => r.keyId === 3)).toHaveLength(20);
    expect(writer.stats()).toMatchObject({ dropped: 1, droppedRefused: 1, droppedOverflow: 0, queuedRows: 0, written: 40 });
    expect(writer.recording).toBe(true);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ kind: 'row_refused', dropped: 1 });
    // Later rows keep landing.
    writer.enqueue(row(2));
    await writer.flush();
    expect(stored.filter((r) => r.keyId === 2)).toHaveLength(21);
    await writer.close();
  });

  it('isolates a poison row even when the error carries no SQLSTATE, once other rows land', async () => {
    const { store, stored } = poisonableStore(() => new Error('opaque refusal'));
    const writer = new LedgerWriter(store, { flushMs: 60_000 });
    writer.enqueue(row(666));
    for (let i = 0; i < 9; i += 1) writer.enqueue(row(2));
    for (let attempt = 0; attempt < 5 && writer.stats().queuedRows > 0; attempt += 1) await writer.flush();
    expect(stored.filter((r) => r.keyId === 2)).toHaveLength(9);
    expect(writer.stats()).toMatchObject({ droppedRefused: 1, queuedRows: 0 });
    expect(writer.recording).toBe(true);
  });

  it('keeps rows while the store is down, backs off, and writes them all when it returns', async () => {
    vi.useFakeTimers();
    let down = true;
    const attemptsAt: number[] = [];
    const stored: LedgerInsert[] = [];
    const writer = new LedgerWriter(
      {
        async insert(rows) {
          attemptsAt.push(Date.now());
          if (down) throw new Error('connection refused');
          stored.push(...rows);
        },
      },
      { flushMs: 100, maxBackoffMs: 5_000 },
    );
    for (let i = 0; i < 10; i += 1) writer.enqueue(row(2));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(writer.recording).toBe(false);
    expect(stored).toHaveLength(0);
    expect(writer.stats()).toMatchObject({ queuedRows: 10, dropped: 0 });
    const rounds = [...new Set(attemptsAt)];
    const gaps = rounds.slice(1).map((t, i) => t - rounds[i]!);
    expect(gaps[0]!).toBeGreaterThanOrEqual(200);
    expect(gaps.every((g, i) => i === 0 || g >= gaps[i - 1]!)).toBe(true); // growing
    expect(gaps.at(-1)!).toBe(5_000); // capped
    expect(rounds.length).toBeLessThan(12); // not every 0.3 s
    expect(attemptsAt.length).toBeLessThan(rounds.length * 6); // a probe per round, not a row-by-row storm
    down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stored).toHaveLength(10);
    expect(writer.recording).toBe(true);
    expect(writer.stats().dropped).toBe(0);
  });

  it('bounds the queue in rows and in bytes, dropping the oldest and counting them', async () => {
    const down: LedgerStore = { insert: async () => Promise.reject(new Error('down')) };
    const byRows = new LedgerWriter(down, { flushMs: 60_000, maxBuffered: 5 });
    for (let i = 0; i < 8; i += 1) byRows.enqueue(row(2, { endpoint: `/e${i}` }));
    expect(byRows.stats()).toMatchObject({ queuedRows: 5, droppedOverflow: 3, dropped: 3 });
    const byBytes = new LedgerWriter(down, { flushMs: 60_000, maxBufferedBytes: 4_000 });
    for (let i = 0; i < 8; i += 1) byBytes.enqueue(row(2, { requestSummary: { pad: 'x'.repeat(1_000) } }));
    expect(byBytes.stats().queuedBytes).toBeLessThanOrEqual(4_000);
    expect(byBytes.stats().droppedOverflow).toBeGreaterThanOrEqual(4);
    await byRows.close();
    await byBytes.close();
  });

  it('scrubs NUL and lone surrogates out of every string, keys included, before the store sees them', async () => {
    const stored: LedgerInsert[] = [];
    const writer = new LedgerWriter({ insert: async (rows) => void stored.push(...rows) }, { flushMs: 60_000 });
    writer.enqueue(row(2, { runId: 'a\u0000b', requestSummary: { body: { 'k\u0000': ['x\ud800y', 'ok \ud83d\ude00'] } } }));
    await writer.flush();
    expect(stored[0]!.runId).toBe('a\ufffdb');
    expect(stored[0]!.requestSummary).toEqual({ body: { 'k\ufffd': ['x\ufffdy', 'ok \ud83d\ude00'] } });
    expect(stored[0]!.startedAt).toBeInstanceOf(Date);
  });

  it('flush() writes the rows queued before it and returns while new rows keep arriving; concurrent callers share batches', async () => {
    const stored: LedgerInsert[] = [];
    let inserts = 0;
    // Every insert sees another row arrive meanwhile, like a server under steady load.
    const writer: LedgerWriter = new LedgerWriter(
      {
        insert: async (rows) => {
          inserts += 1;
          if (inserts > 50) throw new Error('flush chased rows queued after it was called');
          stored.push(...rows);
          writer.enqueue(row(4));
        },
      },
      { flushMs: 60_000, maxBatch: 3 },
    );
    for (let i = 0; i < 5; i += 1) writer.enqueue(row(2));
    await Promise.all([writer.flush(), writer.flush(), writer.flush()]);
    // five rows in batches of three: two inserts for all three callers, the rows they added wait for later
    expect(inserts).toBe(2);
    expect(stored.filter((r) => r.keyId === 2)).toHaveLength(5);
    expect(writer.stats().queuedRows).toBe(1);
    await writer.close();
  });

  it('enqueueAndStore() resolves once the row is stored; calls arriving during an insert share the next one', async () => {
    const stored: LedgerInsert[] = [];
    let inserts = 0;
    let release: () => void = () => {};
    const writer = new LedgerWriter(
      {
        insert: async (rows) => {
          inserts += 1;
          if (inserts === 1) await new Promise<void>((resolve) => (release = resolve));
          stored.push(...rows);
        },
      },
      { flushMs: 60_000 },
    );
    const first = writer.enqueueAndStore(row(2));
    await Promise.resolve();
    const later = [writer.enqueueAndStore(row(3)), writer.enqueueAndStore(row(3)), writer.enqueueAndStore(row(3))];
    expect(stored).toHaveLength(0);
    release();
    expect(await first).toBe(true);
    expect(await Promise.all(later)).toEqual([true, true, true]);
    expect(stored).toHaveLength(4);
    expect(inserts).toBe(2);
    await writer.close();
  });

  it('enqueueAndStore() answers false at once while the store is down, keeps the row and stores it on recovery', async () => {
    vi.useFakeTimers();
    let down = true;
    let attempts = 0;
    const stored: LedgerInsert[] = [];
    const writer = new LedgerWriter(
      {
        async insert(rows) {
          attempts += 1;
          if (down) throw new Error('connection refused');
          stored.push(...rows);
        },
      },
      { flushMs: 100, maxBackoffMs: 1_000 },
    );
    expect(await writer.enqueueAndStore(row(2))).toBe(false);
    expect(attempts).toBe(1);
    expect(await writer.enqueueAndStore(row(2))).toBe(false);
    expect(attempts).toBe(1); // no attempt of its own against a failing store
    expect(writer.stats().queuedRows).toBe(2);
    down = false;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(stored).toHaveLength(2);
    expect(await writer.enqueueAndStore(row(2))).toBe(true);
    const { store } = poisonableStore(() => new SqlError('22P05'));
    const strict = new LedgerWriter(store, { flushMs: 60_000 });
    expect(await strict.enqueueAndStore(row(666))).toBe(false);
  });

  it('calls waiting behind an insert that fails make no attempt of their own: one attempt, all answer false', async () => {
    let attempts = 0;
    let fail: () => void = () => {};
    const writer = new LedgerWriter(
      {
        insert: async () => {
          attempts += 1;
          await new Promise<void>((_resolve, reject) => (fail = () => reject(new Error('connection reset'))));
        },
      },
      { flushMs: 60_000, maxBackoffMs: 60_000 },
    );
    const first = writer.enqueueAndStore(row(2));
    await Promise.resolve();
    const waiting = [writer.enqueueAndStore(row(3)), writer.enqueueAndStore(row(3)), writer.enqueueAndStore(row(3))];
    fail();
    expect(await Promise.all([first, ...waiting])).toEqual([false, false, false, false]);
    expect(attempts).toBe(1);
    expect(writer.stats().queuedRows).toBe(4); // kept for the back-off retry
  });

  it('enqueueAndStore() gives up waiting after storeWaitMs (the answer goes out without the ledger headers)', async () => {
    const writer = new LedgerWriter({ insert: () => new Promise<void>(() => {}) }, { flushMs: 60_000, storeWaitMs: 30 });
    const started = Date.now();
    expect(await writer.enqueueAndStore(row(2))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
