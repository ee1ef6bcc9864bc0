import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema.js';
import { migrateAndCheck, type MigrationRun } from './migrate.js';
import { BookCache, BOOK_CHANGES_CHANNEL } from './book-cache.js';
import { openPgliteThread, type PgliteThread } from './pglite-thread.js';
import { pgliteTemplateDump } from './pglite-template.js';
import { lockPgliteDir } from './pglite-lock.js';
import { driverReason, isDatabaseUnavailable } from './sql-state.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that can run a query: the pool or an open transaction. */
export type Queryable = Db | Tx;

export interface DedicatedSession {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  release(): Promise<void>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /**
   * A connection of its own, for session-scoped state such as advisory locks.
   * PGlite has a single connection, so it returns null there.
   */
  dedicatedSession(): Promise<DedicatedSession | null>;
  /**
   * Subscribes to NOTIFY messages on a channel. `onListening(false)` says messages may be
   * missed from now (a dropped connection); the subscription reconnects by itself and says
   * `onListening(true)` again.
   */
  listen(channel: string, onPayload: (payload: string) => void, onListening: (listening: boolean) => void): Promise<() => Promise<void>>;
  /** Account-read copies (src/storage/book-cache.ts), when this process is its database's only writer. */
  bookCache: BookCache | null;
  /** The migrations this open applied (none when the database was current), and those applied earlier whose files changed since. */
  migrations?: MigrationRun;
  /** Connection pool use (PostgreSQL only; metrics). */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  /** Directory for the embedded PGlite files; `memory://` keeps it in memory. */
  pgliteDir: string;
  poolMax?: number;
  /**
   * Called once per statement sent to the database (a round trip), BEGIN and COMMIT included;
   * for tests and diagnostics that count what a request costs.
   */
  onQuery?: (text: string) => void;
  /**
   * Keep in-process copies of account reads (src/storage/book-cache.ts). Only for a process
   * that is the only writer of the database (role `serve`): another process's writes are not seen.
   */
  bookCache?: boolean;
  /**
   * PGlite only: called once if its thread stops on its own (a WebAssembly abort, out of
   * memory). The embedded database is then gone for good; a server exits so a supervisor
   * restarts it, and the restart recovers the files as after a crash.
   */
  onLost?: (error: Error) => void;
  /** PostgreSQL: the name of this process's connections (pg_stat_activity), so processes sharing the database see each other. */
  applicationName?: string;
}

const bookCaches = new WeakMap<object, BookCache>();

/** The book cache of the database `db` belongs to; null for a transaction or without one. */
export function bookCacheOf(db: Queryable): BookCache | null {
  return bookCaches.get(db) ?? null;
}

// numeric → string, timestamptz → Date, int8 → string (we never rely on int8 precision).
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const cache = options.bookCache ? new BookCache() : null;
  const database = options.databaseUrl
    ? openPostgres(withApplicationName(options.databaseUrl, options.applicationName), options.poolMax ?? 10, options.onQuery, cache)
    : await openPglite(options.pgliteDir, options.onQuery, cache, options.onLost);
  try {
    database.migrations = await migrateAndCheck(database.db);
  } catch (error) {
    await database.close().catch(() => undefined);
    if (options.databaseUrl && isDatabaseUnavailable(error)) throw new DatabaseUnreachableError(options.databaseUrl, error);
    throw error;
  }
  if (cache) bookCaches.set(database.db, cache);
  return database;
}

/** PostgreSQL could not be used at start (down, unknown host, no such database, refused credentials): the operator's to fix. */
export class DatabaseUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot use the database at ${redactedUrl(url)} (DATABASE_URL): ${driverReason(cause)}`, { cause });
  }
}

/** The URL without its password and parameters, for messages. */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** The URL with `application_name` set (every connection made from it, the pool's and the LISTEN ones, carries it). */
function withApplicationName(url: string, name: string | undefined): string {
  if (!name) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
}

type QueryObserver = (text: string) => void;

const queryText = (q: unknown): string => (typeof q === 'string' ? q : String((q as { text?: unknown } | null)?.text ?? ''));

/** Replaces `target[method]` with a version that tells the observer first. */
function observe(target: object, method: string, onQuery: QueryObserver): void {
  const t = target as Record<string, (...args: unknown[]) => unknown>;
  const original = t[method]!.bind(target);
  t[method] = (...args: unknown[]) => {
    onQuery(queryText(args[0]));
    return original(...args);
  };
}

const NOTICE_PREFIX = `${BOOK_CHANGES_CHANNEL}:`;

/**
 * Book-change signals of one pooled connection (migration 0017): each NOTICE holds its key
 * until the connection's transaction ends (ReadyForQuery idle), then drops it for good.
 */
async function signalBookChanges(client: pg.PoolClient, cache: BookCache): Promise<void> {
  let open: string[] = [];
  const end = () => {
    const ended = open;
    open = [];
    for (const payload of ended) cache.release(payload);
  };
  client.on('notice', (notice) => {
    const text = notice.message ?? '';
    if (!text.startsWith(NOTICE_PREFIX)) return;
    const payload = text.slice(NOTICE_PREFIX.length);
    open.push(payload);
    cache.hold(payload);
  });
  const connection = (client as unknown as { connection: { on(event: 'readyForQuery', listener: (message: { status?: string }) => void): void } }).connection;
  connection.on('readyForQuery', (message) => {
    if (message.status === 'I' && open.length > 0) end();
  });
  // A connection lost inside a transaction may have committed a change without telling us.
  const lost = () => {
    end();
    cache.clear();
  };
  client.on('error', lost);
  client.on('end', () => (open.length > 0 ? lost() : undefined));
  await client.query(`select set_config('paper.book_signal', 'notice', false), set_config('client_min_messages', 'notice', false)`);
}

function openPostgres(url: string, poolMax: number, onQuery?: QueryObserver, cache: BookCache | null = null): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    idleTimeoutMillis: 30_000,
    // a database that does not answer a connect fails the request (503) instead of holding it
    connectionTimeoutMillis: 10_000,
    ...(cache ? { onConnect: (client: pg.PoolClient) => signalBookChanges(client, cache) } : {}),
  } as pg.PoolConfig);
  // every statement, the pool's own included, goes through a client's query()
  if (onQuery) pool.on('connect', (client) => observe(client, 'query', onQuery));
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => undefined);
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    bookCache: cache,
    async dedicatedSession() {
      const client = await pool.connect();
      client.on('error', () => undefined);
      return {
        async query<T>(text: string, params: unknown[] = []) {
          return (await client.query(text, params)).rows as T[];
        },
        async release() {
          client.release(true);
        },
      };
    },
    listen: (channel, onPayload, onListening) => listenPostgres(url, channel, onPayload, onListening),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await pool.end();
    },
  };
}

/** LISTEN on a connection of its own (outside the pool), reconnecting after a drop. */
async function listenPostgres(
  url: string,
  channel: string,
  onPayload: (payload: string) => void,
  onListening: (listening: boolean) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    const dropped = () => {
      if (client !== next) return;
      client = null;
      onListening(false);
      if (!stopped) setTimeout(() => void connect().catch(() => dropped()), 1000).unref();
    };
    next.on('error', dropped);
    next.on('end', dropped);
    client = next;
    await next.connect();
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    onListening(true);
  };
  await connect();
  return async () => {
    stopped = true;
    const current = client;
    client = null;
    await current?.end().catch(() => undefined);
  };
}

/** The thread runs BEGIN and COMMIT itself inside transaction(): they are told as statements too. */
function observePglite(client: PgliteThread, onQuery: QueryObserver): void {
  observe(client, 'query', onQuery);
  observe(client, 'exec', onQuery);
  const transaction = client.transaction.bind(client);
  client.transaction = async <T>(callback: Parameters<PgliteThread['transaction']>[0]): Promise<T> => {
    onQuery('BEGIN');
    try {
      return (await transaction(async (tx) => {
        for (const method of ['query', 'exec']) observe(tx, method, onQuery);
        return callback(tx);
      })) as T;
    } finally {
      onQuery('COMMIT');
    }
  };
}

/**
 * PGlite's own start parameters plus smaller shared buffers: its WebAssembly memory never
 * shrinks, and 128 MB of buffers (initdb's default) cost as much resident memory while the
 * OS caches the files anyway. 32 MB keeps idle RSS well under 600 MB.
 */
const PGLITE_START_PARAMS = [...((PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams ?? []), '-c', 'shared_buffers=32MB'];

/** PGlite on a thread of its own (src/storage/pglite-thread.ts): its statements no longer stop the request thread. */
async function openPglite(dir: string, onQuery?: QueryObserver, cache: BookCache | null = null, onLost?: (error: Error) => void): Promise<Database> {
  const inMemory = dir === 'memory://';
  if (!inMemory) mkdirSync(dir, { recursive: true });
  const unlock = inMemory ? () => undefined : lockPgliteDir(dir);
  // in memory: start from the build's migrated database when there is a current one (pglite-template.ts)
  const dump = inMemory ? pgliteTemplateDump() : null;
  let client: PgliteThread;
  try {
    client = await openPgliteThread(dir, { startParams: PGLITE_START_PARAMS, ...(dump ? { loadDataDir: dump } : {}), ...(onLost ? { onLost } : {}) });
  } catch (error) {
    unlock();
    throw error;
  }
  if (cache) {
    // one session: NOTIFY is delivered before the committing statement returns
    await client.exec(`set paper.book_signal = 'notify'`);
    await client.listen(BOOK_CHANGES_CHANNEL, (payload) => cache.changed(payload));
  }
  if (onQuery) observePglite(client, onQuery);
  const db = drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    bookCache: cache,
    async dedicatedSession() {
      return null;
    },
    async listen(channel, onPayload, onListening) {
      const unlisten = await client.listen(channel, onPayload);
      onListening(true);
      return async () => {
        await unlisten().catch(() => undefined);
      };
    },
    async close() {
      await client.close();
      unlock();
    },
  };
}

export function pgliteDirFor(dataDir: string): string {
  return join(dataDir, 'pglite');
}

/** Runs raw SQL and returns its rows, the same on both drivers. */
export async function queryRows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export async function ping(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}
