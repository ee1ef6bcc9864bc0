/**
 * In-process copies of account-read rows (src/storage/book-read-repo.ts), per key, for a process
 * that is the only writer of its database (role `serve`). Invalidation does not depend on call
 * sites: triggers on every table a cacheable book part reads (migration 0017) name the key a
 * change touches, and the database layer (src/storage/db.ts) passes those signals here.
 * - PostgreSQL: `RAISE NOTICE` from the trigger, on the writing connection, as the row changes.
 *   The key stays "held" (not served, not stored) until that connection's transaction ends
 *   (ReadyForQuery idle), so a read meanwhile cannot cache the old committed state.
 * - PGlite (one session, statements serialized): `NOTIFY`, delivered before the committing
 *   statement returns.
 * A read stores its row only if no signal for its key arrived while it ran (a generation
 * check), so a read that raced a write never caches what it saw.
 * Prices are never cached: rows hold quantities; routes value them at the current mark.
 */

/** The trigger payload that means every book (set-wide writes, truncation). */
export const ALL_BOOKS = '*';
/** Notice text prefix / notify channel of migration 0017. */
export const BOOK_CHANGES_CHANNEL = 'paper_books';

/** rows kept in all (a row is one read's answer: a few KB, up to a few hundred KB for a full history page) */
const MAX_ROWS = 5_000;
/** distinct reads kept per key, least recently used out (polling with a moving `updatedSince` makes new ones) */
const MAX_READS_PER_KEY = 16;

export interface BookCacheToken {
  epoch: number;
  generation: number;
}

export class BookCache {
  private epoch = 0;
  private readonly generations = new Map<number, number>();
  private readonly held = new Map<number, number>();
  private readonly entries = new Map<number, Map<string, unknown>>();
  /** open set-wide changes: nothing is served or stored meanwhile */
  private holdAll = 0;
  private rowCount = 0;
  /** database reads under way, per key and query: concurrent misses share one */
  private readonly flights = new Map<string, { token: BookCacheToken; promise: Promise<unknown> }>();
  /** bumped by every change to any book: reads over all books (readShared) are kept while it stands */
  private anyGeneration = 0;
  private readonly shared = new Map<string, unknown>();
  hits = 0;
  misses = 0;
  sharedHits = 0;
  /** Turned off for good: another process writes this database (src/services/process-presence.ts). */
  private disabled = false;

  /** The cached row of `keyId` for this query, if any (undefined: read the database). */
  get(keyId: number, query: string): unknown {
    if (this.disabled || this.holdAll > 0 || this.held.has(keyId)) return undefined;
    const rows = this.entries.get(keyId);
    const row = rows?.get(query);
    if (row === undefined) this.misses += 1;
    else {
      this.hits += 1;
      rows!.delete(query); // most recently used last
      rows!.set(query, row);
    }
    return row;
  }

  /**
   * The cached row, else the database's through `load` (stored unless its key changed meanwhile).
   * A concurrent miss shares a read under way only if no change to its key arrived since that
   * read started (so it can never answer a state older than a write that already answered).
   */
  async read<R>(keyId: number, query: string, load: () => Promise<R | undefined>): Promise<R | undefined> {
    const cached = this.get(keyId, query);
    if (cached !== undefined) return cached as R;
    const flightKey = `${keyId}\u0000${query}`;
    const flight = this.flights.get(flightKey);
    if (flight && this.current(keyId, flight.token)) return flight.promise as Promise<R | undefined>;
    const token = this.token(keyId);
    const promise = load();
    const entry = { token, promise };
    this.flights.set(flightKey, entry);
    try {
      const row = await promise;
      if (row !== undefined) this.store(keyId, query, row, token);
      return row;
    } finally {
      if (this.flights.get(flightKey) === entry) this.flights.delete(flightKey);
    }
  }

  /**
   * A read over every book (the arena board's fingerprint): answered from memory until any book
   * changes. Neither served nor stored while a change is held open.
   */
  async readShared<R>(query: string, load: () => Promise<R>): Promise<R> {
    const quiet = () => !this.disabled && this.holdAll === 0 && this.held.size === 0;
    if (quiet() && this.shared.has(query)) {
      this.sharedHits += 1;
      return this.shared.get(query) as R;
    }
    const generation = this.anyGeneration;
    const row = await load();
    if (generation === this.anyGeneration && quiet()) this.shared.set(query, row);
    return row;
  }

  private current(keyId: number, token: BookCacheToken): boolean {
    return !this.disabled && this.holdAll === 0 && !this.held.has(keyId) && token.epoch === this.epoch && token.generation === (this.generations.get(keyId) ?? 0);
  }

  /** Taken before a database read; `store` keeps the row only if nothing changed since. */
  token(keyId: number): BookCacheToken {
    return { epoch: this.epoch, generation: this.generations.get(keyId) ?? 0 };
  }

  store(keyId: number, query: string, row: unknown, token: BookCacheToken): void {
    if (!this.current(keyId, token)) return;
    let rows = this.entries.get(keyId);
    if (rows) this.entries.delete(keyId); // re-insert: the Map's order is least recently stored first
    else rows = new Map();
    if (!rows.delete(query)) this.rowCount += 1;
    rows.set(query, row);
    if (rows.size > MAX_READS_PER_KEY) {
      rows.delete(rows.keys().next().value!);
      this.rowCount -= 1;
    }
    this.entries.set(keyId, rows);
    while (this.rowCount > MAX_ROWS) this.drop(this.entries.keys().next().value!);
  }

  private drop(keyId: number): void {
    this.rowCount -= this.entries.get(keyId)?.size ?? 0;
    this.entries.delete(keyId);
  }

  /** A committed change to the key's book (or to every book: ALL_BOOKS). */
  changed(payload: string): void {
    this.anyGeneration += 1;
    this.shared.clear();
    if (payload === ALL_BOOKS) {
      this.epoch += 1;
      this.entries.clear();
      this.rowCount = 0;
      return;
    }
    const keyId = Number(payload);
    if (!Number.isInteger(keyId)) {
      this.changed(ALL_BOOKS);
      return;
    }
    this.generations.set(keyId, (this.generations.get(keyId) ?? 0) + 1);
    this.drop(keyId);
  }

  /** A change inside a transaction still open: neither served nor stored until `release`. */
  hold(payload: string): void {
    this.changed(payload);
    if (payload === ALL_BOOKS) this.holdAll += 1;
    else this.held.set(Number(payload), (this.held.get(Number(payload)) ?? 0) + 1);
  }

  /** The transaction that `hold` saw ended (committed or not). */
  release(payload: string): void {
    if (payload === ALL_BOOKS) this.holdAll = Math.max(0, this.holdAll - 1);
    else {
      const keyId = Number(payload);
      const n = (this.held.get(keyId) ?? 0) - 1;
      if (n > 0) this.held.set(keyId, n);
      else this.held.delete(keyId);
    }
    this.changed(payload);
  }

  /** Forget everything (a lost connection: a change may have committed unseen). */
  clear(): void {
    this.changed(ALL_BOOKS);
  }

  /** Forget everything and keep nothing from now on: this process is no longer its database's only writer. */
  disable(): void {
    this.disabled = true;
    this.clear();
  }

  get enabled(): boolean {
    return !this.disabled;
  }
}
