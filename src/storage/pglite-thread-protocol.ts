/** Messages between the request thread (pglite-thread.ts) and the database thread (pglite-worker.ts). */
export type ThreadRequest =
  | { id: number; op: 'open'; dir: string; startParams?: string[]; loadDataDir?: string }
  | { id: number; op: 'query'; text: string; params: unknown[] | undefined; rowMode: 'array' | 'object' | undefined; tx?: number }
  | { id: number; op: 'exec'; text: string; tx?: number }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'listen'; channel: string }
  | { id: number; op: 'close' };

/** A database error's fields that callers read (SQLSTATE `code` above all). */
export interface WireError {
  message: string;
  code?: string;
  detail?: string;
  hint?: string;
  constraint?: string;
  table?: string;
  column?: string;
  schema?: string;
  severity?: string;
  where?: string;
}

/**
 * An error after which the engine cannot go on: a WebAssembly trap (PGlite's abort) or its
 * exit (a FATAL). The database thread then stops, which the other side reports as lost.
 */
export function isEngineFatal(error: unknown): boolean {
  return error instanceof WebAssembly.RuntimeError || (error as { name?: unknown } | null)?.name === 'ExitStatus';
}

export type ThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  | { notify: string; payload: string };
