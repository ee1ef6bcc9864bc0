import type { LedgerInsert } from '../storage/ledger-repo.js';
import { isWriteRefusal, sqlStateOf } from '../storage/sql-state.js';
import { scrubForStore } from './scrub.js';

export interface LedgerStore {
  insert(rows: LedgerInsert[]): Promise<void>;
}

/** What the writer reports (rate-limited to one call per `warnEveryMs` per kind). */
export interface LedgerProblem {
  /** `store_failed`: nothing could be written (kept, retried with back-off); `row_refused`: rows the store refused, dropped; `overflow`: oldest rows dropped to stay within bounds. */
  kind: 'store_failed' | 'row_refused' | 'overflow';
  /** Rows dropped since the last report of this kind (0 for `store_failed`). */
  dropped: number;
  error?: unknown;
}

export interface LedgerWriterOptions {
  flushMs: number;
  maxBatch?: number;
  /** Rows kept while the store is failing; the oldest are dropped beyond it. */
  maxBuffered?: number;
  /** Approximate bytes kept while the store is failing; the oldest are dropped beyond it. */
  maxBufferedBytes?: number;
  /** Ceiling of the retry back-off after consecutive store failures. */
  maxBackoffMs?: number;
  /** At most one report per kind in this window (the counters in `stats()` are exact). */
  warnEveryMs?: number;
  /** How long `enqueueAndStore` waits for its row to be stored (default 2 s). */
  storeWaitMs?: number;
  onProblem?: (problem: LedgerProblem) => void;
}

export interface LedgerWriterStats {
  queuedRows: number;
  queuedBytes: number;
  written: number;
  /** All rows dropped: refused by the store plus overflowed. */
  dropped: number;
  droppedRefused: number;
  droppedOverflow: number;
  /** Consecutive failed write attempts (0 when the store is healthy). */
  consecutiveFailures: number;
}

interface IsolationState {
  landed: boolean;
  storeDown: boolean;
  suspects: number;
}

interface Queued {
  row: LedgerInsert;
  bytes: number;
  /** enqueue order: flush() writes through the newest row queued when it was called */
  n: number;
  /** set once an insert holding this row succeeded */
  stored?: boolean;
}

/** PostgreSQL error classes that blame the row, not the store: data exceptions, integrity, limits. */
const ROW_FAULT = /^(22|23|54)|^42804$/;

const isRowFault = (error: unknown): boolean => ROW_FAULT.test(sqlStateOf(error) ?? '');

/** After this many consecutive failures with an unclassified error, bisect the batch anyway. */
const ISOLATE_AFTER_FAILURES = 3;

/**
 * Buffers ledger rows and writes them in batches off the request path. Fail-open (contract):
 * calls go on being served whatever the store does; `recording` turns false (responses stop
 * claiming a ledger event) until a later write succeeds.
 * - A batch the store refuses is bisected, so one bad row never blocks the rest: the rows that
 *   fit land, the refused ones are dropped and counted (`stats().droppedRefused`).
 * - While the store is down, rows stay queued (bounded in rows and bytes, oldest dropped and
 *   counted) and retries back off exponentially up to `maxBackoffMs`.
 * - Every row is scrubbed on the way in (no NUL, no lone surrogate), so no caller string can
 *   make PostgreSQL refuse it.
 */
export class LedgerWriter {
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private enqueued = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private healthy = true;
  /** The last failed write said the database takes no writes (a full disk, a read-only volume). */
  private writesRefused = false;
  private closed = false;
  private written = 0;
  private droppedRefused = 0;
  private droppedOverflow = 0;
  private consecutiveFailures = 0;
  private readonly unreported = { store_failed: 0, row_refused: 0, overflow: 0 };
  private readonly lastReportAt = { store_failed: -Infinity, row_refused: -Infinity, overflow: -Infinity };

  constructor(
    private readonly store: LedgerStore,
    private readonly options: LedgerWriterOptions,
  ) {}

  /** True while the store accepts writes: only then may a response carry the ledger headers. */
  get recording(): boolean {
    return this.healthy && !this.closed;
  }

  /** True while the store's last failure said it refuses writes as such (`/readyz` says so), until a write lands. */
  get refusingWrites(): boolean {
    return this.writesRefused;
  }

  stats(): LedgerWriterStats {
    return {
      queuedRows: this.queue.length,
      queuedBytes: this.queuedBytes,
      written: this.written,
      dropped: this.droppedRefused + this.droppedOverflow,
      droppedRefused: this.droppedRefused,
      droppedOverflow: this.droppedOverflow,
      consecutiveFailures: this.consecutiveFailures,
    };
  }

  private get maxBatch(): number {
    return this.options.maxBatch ?? 500;
  }

  enqueue(row: LedgerInsert): void {
    if (!this.push(row)) return;
    if (this.queue.length >= this.maxBatch && this.consecutiveFailures === 0) void this.flush();
    else this.schedule(this.consecutiveFailures === 0 ? this.options.flushMs : this.backoffMs());
  }

  /**
   * Queues a row and writes it now, with whatever else is queued (concurrent callers share one
   * insert): resolves true once it is stored, false when it is not — refused, or the store is
   * failing (the row stays queued for the back-off retries; a caller never retries itself, also
   * not after an insert it waited for failed), or not stored within `storeWaitMs` (it may land
   * later). Never rejects.
   */
  async enqueueAndStore(row: LedgerInsert): Promise<boolean> {
    const queued = this.push(row);
    if (!queued) return false;
    if (this.consecutiveFailures > 0) {
      this.schedule(this.backoffMs());
      return false;
    }
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.storeWaitMs ?? 2_000);
      timer.unref();
    });
    await Promise.race([this.flush({ retry: false }), gaveUp]);
    clearTimeout(timer);
    return queued.stored === true;
  }

  private push(row: LedgerInsert): Queued | null {
    if (this.closed) return null;
    const scrubbed = scrubForStore(row);
    this.enqueued += 1;
    const queued: Queued = { row: scrubbed.value as LedgerInsert, bytes: scrubbed.bytes, n: this.enqueued };
    this.queue.push(queued);
    this.queuedBytes += scrubbed.bytes;
    this.enforceBounds();
    return queued;
  }

  private enforceBounds(): void {
    const maxRows = this.options.maxBuffered ?? 50_000;
    const maxBytes = this.options.maxBufferedBytes ?? 64 * 1024 * 1024;
    let dropped = 0;
    while (this.queue.length > 0 && (this.queue.length > maxRows || this.queuedBytes > maxBytes)) {
      this.queuedBytes -= this.queue.shift()!.bytes;
      dropped += 1;
    }
    if (dropped > 0) {
      this.droppedOverflow += dropped;
      this.report({ kind: 'overflow', dropped });
    }
  }

  private report(problem: LedgerProblem): void {
    const now = Date.now();
    const pending = this.unreported[problem.kind] + problem.dropped;
    if (now - this.lastReportAt[problem.kind] < (this.options.warnEveryMs ?? 10_000)) {
      this.unreported[problem.kind] = pending;
      return;
    }
    this.unreported[problem.kind] = 0;
    this.lastReportAt[problem.kind] = now;
    this.options.onProblem?.({ ...problem, dropped: pending });
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private backoffMs(): number {
    const base = Math.max(1, this.options.flushMs);
    return Math.min(this.options.maxBackoffMs ?? 30_000, base * 2 ** Math.min(this.consecutiveFailures, 16));
  }

  /**
   * Writes every row queued before this call (one attempt per batch); resolves when done, never
   * rejects. Rows queued later do not extend the wait (a reader calling this under load would
   * otherwise chase a queue that never empties), and concurrent callers share the batches.
   */
  async flush(options: { retry?: boolean } = {}): Promise<void> {
    const through = this.enqueued;
    for (;;) {
      while (this.flushing) await this.flushing;
      // after a failed insert, only the back-off timer tries again (unless the caller insists)
      if (options.retry === false && this.consecutiveFailures > 0) return;
      if (this.queue.length === 0 || this.queue[0]!.n > through) return;
      const batch = this.queue.splice(0, this.maxBatch);
      for (const q of batch) this.queuedBytes -= q.bytes;
      this.flushing = this.writeBatch(batch).finally(() => {
        this.flushing = null;
      });
      await this.flushing;
      if (this.consecutiveFailures > 0) {
        if (!this.closed) this.schedule(this.backoffMs());
        return;
      }
    }
  }

  private async tryInsert(items: Queued[]): Promise<unknown> {
    try {
      await this.store.insert(items.map((q) => q.row));
      this.written += items.length;
      for (const q of items) q.stored = true;
      return null;
    } catch (error) {
      return error ?? new Error('ledger insert failed');
    }
  }

  private async writeBatch(batch: Queued[]): Promise<void> {
    const error = await this.tryInsert(batch);
    if (error === null) return this.succeeded();
    if (isRowFault(error) || this.consecutiveFailures >= ISOLATE_AFTER_FAILURES) {
      const keep = await this.isolate(batch, { landed: false, storeDown: false, suspects: 0 });
      // Rows kept only when nothing landed: the store itself is failing.
      return keep.length === 0 ? this.succeeded() : this.failed(keep, error);
    }
    return this.failed(batch, error);
  }

  /**
   * Bisects a refused batch: halves that land are written; a single row the store refuses is
   * dropped when the error blames the row, or once another part of the batch has landed (the
   * store is up, so the row is at fault). Two single rows failing for no stated reason before
   * anything landed mean the store is down: the search stops and everything left is kept.
   * Returns the rows to keep for a later attempt.
   */
  private async isolate(items: Queued[], state: IsolationState): Promise<Queued[]> {
    if (state.storeDown) return items;
    if (items.length === 1) {
      const error = await this.tryInsert(items);
      if (error === null) state.landed = true;
      else if (isRowFault(error) || state.landed) this.dropRefused(1, error);
      else {
        state.suspects += 1;
        state.storeDown = state.suspects > 1;
        return items;
      }
      return [];
    }
    const middle = Math.ceil(items.length / 2);
    const keep: Queued[] = [];
    for (const half of [items.slice(0, middle), items.slice(middle)]) {
      if (state.storeDown) keep.push(...half);
      else if ((await this.tryInsert(half)) === null) state.landed = true;
      else keep.push(...(await this.isolate(half, state)));
    }
    if (!state.landed || keep.length === 0) return keep;
    // The store took other rows, so the suspects kept before that are at fault: one last try each.
    for (const q of keep) {
      const error = await this.tryInsert([q]);
      if (error !== null) this.dropRefused(1, error);
    }
    return [];
  }

  private dropRefused(count: number, error: unknown): void {
    this.droppedRefused += count;
    this.report({ kind: 'row_refused', dropped: count, error });
  }

  private succeeded(): void {
    this.healthy = true;
    this.writesRefused = false;
    this.consecutiveFailures = 0;
  }

  private failed(rows: Queued[], error: unknown): void {
    this.healthy = false;
    this.writesRefused = isWriteRefusal(error);
    this.consecutiveFailures += 1;
    // Keep the rows, oldest first, for the next attempt (bounded like any other queued row).
    this.queue.unshift(...rows);
    for (const q of rows) this.queuedBytes += q.bytes;
    this.enforceBounds();
    this.report({ kind: 'store_failed', dropped: 0, error });
  }

  /** Flushes what is pending (one attempt) and stops accepting rows. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
