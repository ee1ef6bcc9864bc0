import { ApiError } from '../http/errors.js';

/** A write that never started (the queue was full or waited too long): nothing was written, a retry is safe. */
export const bookBusy = () =>
  new ApiError(503, 'contention_retry', 'the book is being updated by another writer; retry with the same idempotencyKey', {}, { 'retry-after': '1' });

/**
 * Writes of one book from this process, one after another (runTradeWrite): run together, the
 * later ones would only find the book changed by the first and decide again under a lock. The
 * queue is an optimisation, not the guard — the write's own checks are — so a write that waits
 * too long, or finds too many ahead of it, gives up before starting (503) rather than queue
 * behind a stuck one without end.
 */
export class BookWriteQueue {
  private readonly books = new Map<number, { tail: Promise<void>; waiting: number }>();

  constructor(
    private readonly maxWaiting = 1_000,
    private readonly maxWaitMs = 10_000,
  ) {}

  async run<T>(keyId: number, work: () => Promise<T>): Promise<T> {
    const book = this.books.get(keyId) ?? { tail: Promise.resolve(), waiting: 0 };
    if (book.waiting >= this.maxWaiting) throw bookBusy();
    const before = book.tail;
    let started = false;
    book.waiting += 1;
    const mine = (async () => {
      const ready = await this.within(before);
      book.waiting -= 1;
      if (!ready) throw bookBusy();
      started = true;
      return work();
    })();
    // the next write waits for this one to end; if this one gave up, for the one it waited on
    const tail = mine.then(
      () => undefined,
      () => (started ? undefined : before),
    );
    book.tail = tail;
    this.books.set(keyId, book);
    try {
      return await mine;
    } finally {
      if (book.tail === tail && book.waiting === 0) this.books.delete(keyId);
    }
  }

  /** Books with writes running or waiting (tests). */
  get size(): number {
    return this.books.size;
  }

  /** True once `before` settles, false if maxWaitMs passes first. */
  private within(before: Promise<void>): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), this.maxWaitMs);
      void before.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
