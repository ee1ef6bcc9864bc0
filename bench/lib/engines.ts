/**
 * Runs one bench body on each engine named in BENCH_ENGINES (default pglite,postgres), each
 * on a throw-away database: a temp PGlite directory, or a fresh PostgreSQL database on
 * BENCH_PG_URL that is dropped afterwards (skipped with a note when PostgreSQL is unreachable).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, pgliteDirFor, type Database } from '../../src/storage/db.js';
import { createBenchDatabase } from './postgres.js';

export type BenchEngine = 'pglite' | 'postgres';

export const BENCH_ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',').map((s) => s.trim());

export async function runOnEachEngine<T>(
  label: string,
  pgUrl: string,
  run: (engine: BenchEngine, database: Database) => Promise<T>,
): Promise<{ results: T[]; notes: string[] }> {
  const results: T[] = [];
  const notes: string[] = [];
  for (const engine of BENCH_ENGINES) {
    if (engine === 'pglite') {
      const dir = mkdtempSync(join(tmpdir(), `pa-bench-${label}-`));
      const database = await openDatabase({ databaseUrl: null, pgliteDir: pgliteDirFor(dir) });
      try {
        results.push(await run('pglite', database));
      } finally {
        await database.close();
        rmSync(dir, { recursive: true, force: true });
      }
    } else if (engine === 'postgres') {
      const created = await createBenchDatabase(pgUrl);
      if ('skipped' in created) {
        notes.push(`postgres skipped: ${created.skipped}`);
        continue;
      }
      const database = await openDatabase({ databaseUrl: created.url, pgliteDir: 'memory://', poolMax: 10 });
      try {
        results.push(await run('postgres', database));
      } finally {
        await database.close();
        await created.drop();
      }
    } else continue;
    console.log(JSON.stringify(results.at(-1)));
  }
  return { results, notes };
}
