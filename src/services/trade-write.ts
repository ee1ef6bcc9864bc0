/**
 * The one shape of every trade write (issue 11): read once, decide purely, write once.
 *
 * First attempt, two round trips and no explicit transaction: readBook (the book and every
 * row the decision needs, the prior idempotency record included), the pure decision, then
 * writeTrade, a single statement that locks the book, checks every row read is unchanged and
 * applies all effects with the idempotency record. When something changed in between
 * (`stale`), the attempt is repeated inside a transaction that locks the book while reading,
 * so it cannot go stale again for the book's own rows. A refusal of a write with an
 * idempotencyKey is decided once more from a read that waits for the book's lock (see readDecideWrite).
 */
import { BookWriteQueue, bookBusy } from './book-write-queue.js';
import type { Db, Queryable } from '../storage/db.js';
import { readBook, writeTrade, type WriteOutcome, type BookReadRequest, type BookSnapshot, type IdempotencyClaim, type StoredIdempotency } from '../storage/trade-write-repo.js';
import type { TradeEffects } from '../domain/trade-effects.js';
import { ApiError } from '../http/errors.js';
import { intentHash, replayOf, type IdempotentCall } from './idempotency.js';

export interface Decided<R> {
  effects: TradeEffects;
  statusCode: number;
  /** The answer, with placeholders where ids of created rows go (see idPaths). */
  body: Record<string, unknown>;
  idPaths?: IdempotencyClaim['idPaths'];
  /** Anything the caller wants back besides the body. */
  result: R;
}

/** Nothing to write: the answer stands as is (e.g. cancelling an order already closed). */
export interface NoWrite<R> {
  noWrite: true;
  statusCode: number;
  body: Record<string, unknown>;
  result: R;
}

export interface TradeWrite<R> {
  read: Omit<BookReadRequest, 'lock' | 'idempotencyKey'>;
  idempotency?: Omit<IdempotentCall, 'keyId'>;
  lockTimeoutMs?: number;
  /** Pure: a refusal throws an ApiError, which stores nothing. */
  decide(snapshot: BookSnapshot): Decided<R> | NoWrite<R>;
}

export interface TradeWriteResult<R> {
  statusCode: number;
  body: Record<string, unknown>;
  replay: boolean;
  /** Undefined on a replay (nothing was decided). */
  result?: R;
  ids?: WriteIds;
}

type WriteIds = Extract<WriteOutcome, { outcome: 'applied' }>['ids'];

const LOCKED_ATTEMPTS = 2;

/**
 * Writes of one book from this process run one after another (src/services/book-write-queue.ts):
 * run together, the later ones went stale on the first and decided again under a lock — on
 * PGlite a transaction holding the one database thread while this thread decides. Other
 * processes and the risk sweep still meet the guards in the write. One queue per database.
 */
const queues = new WeakMap<Db, BookWriteQueue>();

export async function runTradeWrite<R>(db: Db, write: TradeWrite<R>): Promise<TradeWriteResult<R>> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = new BookWriteQueue()));
  return queue.run(write.read.keyId, () => readDecideWrite(db, write));
}

async function readDecideWrite<R>(db: Db, write: TradeWrite<R>): Promise<TradeWriteResult<R>> {
  const requestHash = write.idempotency ? intentHash(write.idempotency) : null;
  const first = await attempt(db, write, requestHash, false).catch((error: unknown) => {
    // A refusal may have raced a twin of the same idempotencyKey on another process (another
    // mark, a tick later) whose write is committing. One more read that takes the book's lock
    // for its one statement waits for that write and sees its record (replayed), rather than
    // answering "refused" for a write that ran; else the decision is made again from it.
    if (write.idempotency && error instanceof ApiError && error.statusCode < 500) return attempt(db, write, requestHash, true);
    throw error;
  });
  if (first) return first;
  for (let i = 0; i < LOCKED_ATTEMPTS; i += 1) {
    const locked = await db.transaction((tx) => attempt(tx, write, requestHash, true));
    if (locked) return locked;
  }
  throw bookBusy();
}

/** One read-decide-write; null when the write found the rows changed. */
async function attempt<R>(db: Queryable, write: TradeWrite<R>, requestHash: string | null, lock: boolean): Promise<TradeWriteResult<R> | null> {
  const idem = write.idempotency;
  const snapshot = await readBook(db, { ...write.read, lock, ...(idem ? { idempotencyKey: idem.idempotencyKey } : {}) });
  if (snapshot.idempotency) return replay(snapshot.idempotency, requestHash!);
  const decided = write.decide(snapshot);
  if ('noWrite' in decided) return { statusCode: decided.statusCode, body: decided.body, replay: false, result: decided.result };
  const outcome = await writeTrade(db, {
    snapshot,
    effects: decided.effects,
    ...(write.lockTimeoutMs !== undefined ? { lockTimeoutMs: write.lockTimeoutMs } : {}),
    ...(idem
      ? {
          idempotency: {
            idempotencyKey: idem.idempotencyKey,
            route: idem.route,
            requestHash: requestHash!,
            statusCode: decided.statusCode,
            response: decided.body,
            idPaths: decided.idPaths ?? [],
          },
        }
      : {}),
  });
  if (outcome.outcome === 'stale') return null;
  if (outcome.outcome === 'exists') return replay(outcome.record, requestHash!);
  let body = decided.body;
  for (const { path, from } of decided.idPaths ?? []) body = setPath(body, path, outcome.ids[from]);
  return { statusCode: decided.statusCode, body, replay: false, result: decided.result, ids: outcome.ids };
}

function replay<R>(record: StoredIdempotency, requestHash: string): TradeWriteResult<R> {
  return { ...replayOf(record, requestHash), replay: true };
}

function setPath(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined) return body;
  const next = rest.length === 0 ? value : setPath((body[head] ?? {}) as Record<string, unknown>, rest, value);
  return { ...body, [head]: next };
}
