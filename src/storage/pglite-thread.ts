/**
 * PGlite on a thread of its own (src/storage/pglite-worker.ts), behind the part of PGlite's
 * interface that Drizzle and the database layer use: query, exec, transaction, listen, close.
 * The request thread keeps serving HTTP while a statement runs; each statement costs a message
 * each way.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { ThreadReply, ThreadRequest, WireError } from './pglite-thread-protocol.js';

/** A request before `call` numbers it (Omit applied to each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Request = WithoutId<ThreadRequest>;

export interface QueryOptions {
  rowMode?: 'array' | 'object';
  /** Accepted for Drizzle and ignored: timestamps, intervals and dates always come back as text, their arrays as arrays of text (src/storage/pglite-worker.ts). */
  parsers?: Record<number, unknown>;
}

/** What a statement answers (PGlite's Results). */
export interface ThreadResults<T = Record<string, unknown>> {
  rows: T[];
  affectedRows?: number;
  fields: { name: string; dataTypeID: number }[];
}

export interface ThreadSession {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<ThreadResults<T>>;
  exec(text: string): Promise<ThreadResults[]>;
}

export interface PgliteThread extends ThreadSession {
  transaction<T>(callback: (tx: ThreadSession) => Promise<T>): Promise<T>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A database error as the driver would have thrown it (callers read `code`, the SQLSTATE). */
export class ThreadDatabaseError extends Error {
  constructor(wire: WireError) {
    super(wire.message);
    Object.assign(this, wire);
  }
}

export interface PgliteThreadOptions {
  /** PGlite's own when omitted. */
  startParams?: string[];
  /** A PGlite dump file (dumpDataDir) the new database starts from instead of an empty cluster. */
  loadDataDir?: string;
  /** Bounds on the thread's JavaScript heap (Node's Worker resourceLimits). */
  resourceLimits?: ResourceLimits;
  /**
   * Called once when the thread stops without close() (a WebAssembly abort, out of memory):
   * the database is gone for good, every later call rejects.
   */
  onLost?: (error: Error) => void;
}

/** The bundle sits in dist/ beside its worker; from the sources (tsx, tests) the worker registers tsx first. */
function startWorker(resourceLimits?: ResourceLimits): Worker {
  const options = resourceLimits ? { resourceLimits } : {};
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./pglite-worker.js', import.meta.url), options);
  const source = new URL('./pglite-worker.ts', import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`, { ...options, eval: true });
}

/** `dir`: a directory, or `memory://`. */
export async function openPgliteThread(dir: string, options: PgliteThreadOptions = {}): Promise<PgliteThread> {
  const { startParams, loadDataDir, onLost } = options;
  const worker = startWorker(options.resourceLimits);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 0;
  let failure: Error | null = null;

  // lost = stopped after opening and before close() began
  let opened = false;
  let closing = false;
  const failAll = (error: Error) => {
    const lost = failure === null && opened && !closing;
    failure ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    if (lost) onLost?.(error);
  };
  worker.on('message', (message: ThreadReply) => {
    if ('notify' in message) {
      for (const listener of listeners.get(message.notify) ?? []) listener(message.payload);
      return;
    }
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(new ThreadDatabaseError(message.error));
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`the database thread exited (code ${code})`)));

  const call = <T>(request: Request): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = (nextId += 1);
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id } as ThreadRequest);
    });
  };

  const session = (tx?: number): ThreadSession => ({
    query: (text, params, options) =>
      call({ op: 'query', text, params, rowMode: options?.rowMode, ...(tx === undefined ? {} : { tx }) }),
    exec: (text) => call({ op: 'exec', text, ...(tx === undefined ? {} : { tx }) }),
  });

  try {
    await call({ op: 'open', dir, ...(startParams ? { startParams } : {}), ...(loadDataDir ? { loadDataDir } : {}) });
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  opened = true;
  return {
    ...session(),
    async transaction(callback) {
      const tx = await call<number>({ op: 'begin' });
      let result;
      try {
        result = await callback(session(tx));
      } catch (error) {
        await call({ op: 'end', tx, commit: false }).catch(() => undefined);
        throw error;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
    async listen(channel, onPayload) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await call({ op: 'listen', channel });
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
      };
    },
    async close() {
      closing = true;
      if (!failure) await call({ op: 'close' }).catch(() => undefined);
      failure ??= new Error('the database is closed');
      await worker.terminate();
    },
  };
}
