import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema.js';
import { migrate } from './migrate.js';

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
}

// numeric → string, timestamptz → Date, int8 → string (we never rely on int8 precision).
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolMax ?? 10, options.onQuery)
    : await openPglite(options.pgliteDir, options.onQuery);
  await migrate(database.db);
  return database;
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

function openPostgres(url: string, poolMax: number, onQuery?: QueryObserver): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolMax, idleTimeoutMillis: 30_000 });
  // every statement, the pool's own included, goes through a client's query()
  if (onQuery) pool.on('connect', (client) => observe(client, 'query', onQuery));
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => undefined);
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
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

/** PGlite runs BEGIN and COMMIT itself inside transaction(): they are told as statements too. */
function observePglite(client: PGlite, onQuery: QueryObserver): void {
  observe(client, 'query', onQuery);
  observe(client, 'exec', onQuery);
  const transaction = client.transaction.bind(client);
  client.transaction = async <T>(callback: Parameters<PGlite['transaction']>[0]): Promise<T> => {
    onQuery('BEGIN');
    try {
      return (await transaction(async (tx) => {
        for (const method of ['query', 'exec', 'sql']) observe(tx, method, onQuery);
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

async function openPglite(dir: string, onQuery?: QueryObserver): Promise<Database> {
  let client: PGlite;
  if (dir === 'memory://') client = new PGlite({ startParams: PGLITE_START_PARAMS });
  else {
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir, { startParams: PGLITE_START_PARAMS });
  }
  await client.waitReady;
  if (onQuery) observePglite(client, onQuery);
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
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
