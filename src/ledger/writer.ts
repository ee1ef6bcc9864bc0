import type { LedgerInsert } from '../storage/ledger-repo.js';

export interface LedgerStore {
  insert(rows: LedgerInsert[]): Promise<void>;
}

export interface LedgerWriterOptions {
  flushMs: number;
  maxBatch?: number;
  /** Rows kept while the store is failing; the oldest are dropped beyond it. */
  maxBuffered?: number;
  onError?: (error: unknown, dropped: number) => void;
}

/**
 * Buffers ledger rows and writes them in batches off the request path. Fail-open: when the
 * store fails, calls go on being served; `recording` turns false (so responses stop claiming
 * a ledger event) until a later write succeeds.
 */
export class LedgerWriter {
  private buffer: LedgerInsert[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private healthy = true;
  private closed = false;
  private dropped = 0;

  constructor(
    private readonly store: LedgerStore,
    private readonly options: LedgerWriterOptions,
  ) {}

  /** Rows waiting to be written (metrics). */
  get queued(): number {
    return this.buffer.length;
  }

  /** Rows dropped since start because the buffer was full (metrics). */
  get droppedTotal(): number {
    return this.dropped;
  }

  /** True while the store accepts writes: only then may a response carry the ledger headers. */
  get recording(): boolean {
    return this.healthy && !this.closed;
  }

  enqueue(row: LedgerInsert): void {
    if (this.closed) return;
    this.buffer.push(row);
    const max = this.options.maxBuffered ?? 50_000;
    if (this.buffer.length > max) {
      const dropped = this.buffer.length - max;
      this.buffer.splice(0, dropped);
      this.dropped += dropped;
      this.options.onError?.(new Error('ledger buffer full'), dropped);
    }
    if (this.buffer.length >= (this.options.maxBatch ?? 500)) void this.flush();
    else this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.options.flushMs);
    this.timer.unref();
  }

  /** Writes everything buffered so far; resolves when done (never rejects). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer.splice(0, this.options.maxBatch ?? 500);
    this.flushing = this.store
      .insert(batch)
      .then(() => {
        this.healthy = true;
      })
      .catch((error: unknown) => {
        this.healthy = false;
        // Keep the batch for the next attempt (bounded by maxBuffered).
        this.buffer.unshift(...batch);
        this.options.onError?.(error, 0);
      })
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
    if (this.buffer.length > 0) {
      if (this.healthy) await this.flush();
      else if (!this.closed) this.schedule();
    }
  }

  /** Flushes what is pending (one attempt) and stops accepting rows. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
