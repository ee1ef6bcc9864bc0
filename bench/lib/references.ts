/**
 * Same-run write references: what the database alone does for a small write transaction, so
 * trade-write rows can be read as a ratio of it.
 * - PostgreSQL: `pgbench` TPC-B-like (the default script) with 16 clients on a database this
 *   bench creates (`pgbench -i`) and drops.
 * - PGlite: bench/pglite-reference.ts, the same transaction shape in a raw PGlite loop (one
 *   process, file-backed like the service, 16 concurrent callers).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createBenchDatabase } from './postgres.js';

const run = promisify(execFile);

export interface WriteReference {
  kind: 'pgbench' | 'pglite-loop';
  status: 'ok' | 'skipped' | 'failed';
  tps?: number;
  clients: number;
  durationS: number;
  note?: string;
}

export const REFERENCE_CLIENTS = 16;

function tpsOf(output: string): number | null {
  const match = /tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)/.exec(output);
  return match ? Number(match[1]) : null;
}

/** `pgbench -i -s <scale>` then `-c 16 -j 2 -T <s>` on a fresh database (dropped afterwards). */
export async function pgbenchReference(adminUrl: string, durationS: number, scale: number, pgbench = process.env.BENCH_PGBENCH ?? 'pgbench'): Promise<WriteReference> {
  const base = { kind: 'pgbench' as const, clients: REFERENCE_CLIENTS, durationS };
  const db = await createBenchDatabase(adminUrl);
  if ('skipped' in db) return { ...base, status: 'skipped', note: db.skipped };
  try {
    await run(pgbench, ['-i', '-q', '-s', String(scale), db.url], { timeout: 300_000 });
    const { stdout } = await run(pgbench, ['-c', String(REFERENCE_CLIENTS), '-j', '2', '-T', String(durationS), db.url], { timeout: (durationS + 120) * 1000 });
    const tps = tpsOf(stdout);
    if (tps === null) return { ...base, status: 'failed', note: `no tps in pgbench output: ${stdout.slice(-300)}` };
    return { ...base, status: 'ok', tps, note: `TPC-B-like, scale ${scale}, -c ${REFERENCE_CLIENTS} -j 2` };
  } catch (error) {
    return { ...base, status: 'failed', note: error instanceof Error ? error.message.slice(0, 300) : String(error) };
  } finally {
    await db.drop().catch(() => undefined);
  }
}
