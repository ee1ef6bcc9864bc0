import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Database } from '../../src/storage/db.js';
import { migrationFiles } from '../../src/storage/migrate.js';
import { pgliteTemplateDump } from '../../src/storage/pglite-template.js';

/** What the migrations made: tables and columns, indexes, functions (by body), applied migrations. */
async function schemaOf(database: Database): Promise<unknown> {
  const { db } = database;
  return {
    columns: await queryRows(db, sql`select table_name, column_name, data_type, column_default, is_nullable from information_schema.columns where table_schema = 'public' order by 1, 2`),
    indexes: await queryRows(db, sql`select indexdef from pg_indexes where schemaname = 'public' order by 1`),
    functions: await queryRows(db, sql`select p.proname, md5(p.prosrc) as body from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' order by 1, 2`),
    migrations: (await queryRows<{ name: string }>(db, sql`select name from schema_migrations order by name`)).map((r) => r.name),
  };
}

const opened: Database[] = [];
const scratchDir = mkdtempSync(join(tmpdir(), 'paper-arena-scratch-'));
afterAll(async () => {
  await Promise.all(opened.map((d) => d.close()));
  rmSync(scratchDir, { recursive: true, force: true });
});

describe('in-memory PGlite from the build template (src/storage/pglite-template.ts)', () => {
  it('starts from a current dump, and holds exactly what initdb plus the migrations make', async () => {
    expect(pgliteTemplateDump()).not.toBeNull(); // the test setup builds it when stale
    const fromDump = await openDatabase({ databaseUrl: null, pgliteDir: 'memory://' });
    opened.push(fromDump);
    // a directory of its own never uses the dump: a cluster made from nothing
    const fromScratch = await openDatabase({ databaseUrl: null, pgliteDir: scratchDir });
    opened.push(fromScratch);
    const schema = (await schemaOf(fromDump)) as { migrations: string[] };
    expect(schema.migrations).toEqual(migrationFiles().map((f) => f.name));
    expect(schema).toEqual(await schemaOf(fromScratch));
  }, 60_000);
});
