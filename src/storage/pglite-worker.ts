/**
 * The embedded database on a thread of its own (src/storage/pglite-thread.ts is the other end):
 * PGlite runs each statement synchronously in WebAssembly, so on the request thread every
 * statement stopped all HTTP work until it finished. Here it runs beside it.
 * Messages in: open, query, exec, begin/end (a transaction held open between them), listen,
 * close. Every reply carries the request's id; notifications are posted as they arrive, so they
 * reach the other thread before the reply of the statement that caused them.
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { isEngineFatal, type ThreadRequest, type ThreadReply, type WireError } from './pglite-thread-protocol.js';

const port = parentPort!;
/**
 * Every statement answers timestamps, dates and intervals as text, as Drizzle asks for (its own
 * parsers are identity functions, which cannot cross threads); their arrays come as arrays of
 * text (PGlite builds array parsers from the element's), which Drizzle reads the same. Set once
 * on the instance: passing parsers per query makes PGlite copy its whole parser table (300+
 * types) each time, ~120 µs a statement.
 */
const RAW_TYPES = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182];
const rawParsers = Object.fromEntries(RAW_TYPES.map((oid) => [oid, (value: string) => value]));

let client: PGlite | null = null;
/** Open transactions: each waits for 'end', whose request id it answers once PGlite finished it. */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void; endRequest?: number }>();
let nextTx = 0;

const reply = (message: ThreadReply) => port.postMessage(message);

function wireError(error: unknown): WireError {
  const e = (error ?? {}) as Record<string, unknown>;
  const out: WireError = { message: error instanceof Error ? error.message : String(error) };
  for (const field of ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'where'] as const) {
    if (typeof e[field] === 'string') out[field] = e[field] as string;
  }
  return out;
}

async function handle(message: ThreadRequest): Promise<void> {
  const { id } = message;
  try {
    switch (message.op) {
      case 'open': {
        // one options object: PGlite ignores a second argument when the first is not a directory
        client = new PGlite({
          ...(message.dir === 'memory://' ? {} : { dataDir: message.dir }),
          parsers: rawParsers,
          ...(message.startParams ? { startParams: message.startParams } : {}),
          ...(message.loadDataDir ? { loadDataDir: new Blob([readFileSync(message.loadDataDir)]) } : {}),
        });
        await client.waitReady;
        return reply({ id, ok: true, value: null });
      }
      case 'query': {
        const result = await sessionOf(message.tx).query(message.text, message.params, { rowMode: message.rowMode });
        return reply({ id, ok: true, value: result });
      }
      case 'exec':
        return reply({ id, ok: true, value: await sessionOf(message.tx).exec(message.text) });
      case 'begin': {
        const txId = (nextTx += 1);
        // Held open until 'end': PGlite queues every other statement meanwhile, as in one thread.
        const done = client!.transaction(
          (tx) =>
            new Promise<void>((resolve, reject) => {
              transactions.set(txId, { tx, end: (commit) => (commit ? resolve() : reject(new RollbackRequested())) });
              reply({ id, ok: true, value: txId });
            }),
        );
        done.then(
          () => settleTx(txId, null),
          (error: unknown) => settleTx(txId, error instanceof RollbackRequested ? null : error),
        );
        return;
      }
      case 'end': {
        const open = transactions.get(message.tx);
        if (!open) return reply({ id, ok: false, error: { message: `transaction ${message.tx} is not open` } });
        open.endRequest = id;
        open.end(message.commit);
        return;
      }
      case 'listen': {
        await client!.listen(message.channel, (payload) => reply({ notify: message.channel, payload }));
        return reply({ id, ok: true, value: null });
      }
      case 'close': {
        await client?.close();
        client = null;
        return reply({ id, ok: true, value: null });
      }
    }
  } catch (error) {
    fail(id, error);
  }
}

/** The open transaction `tx`, or the database itself. */
const sessionOf = (tx: number | undefined): PGlite | Transaction => (tx === undefined ? client! : transactions.get(tx)!.tx);

/** Answers request `id` with the error; a broken engine also stops this thread (not the process), which the other side reports as lost. */
function fail(id: number, error: unknown): void {
  reply({ id, ok: false, error: wireError(error) });
  if (isEngineFatal(error)) process.exit(1);
}

class RollbackRequested extends Error {}

function settleTx(txId: number, error: unknown): void {
  const id = transactions.get(txId)?.endRequest;
  transactions.delete(txId);
  if (id === undefined) return;
  if (error) fail(id, error);
  else reply({ id, ok: true, value: null });
}

port.on('message', (message: ThreadRequest) => void handle(message));
