import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { projectPath } from '../util/project-files.js';
import { queryRows, type Db, type Queryable } from './db.js';

const MIGRATIONS_DIR = projectPath('src', 'storage', 'migrations');
// Any constant works; it only has to be the same in every process of one deployment.
const MIGRATION_LOCK_ID = 7_524_083;

export function migrationFiles(): { name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8') }));
}

/** The database has migrations this build does not know: a newer version migrated it. */
export class NewerSchemaError extends Error {}

/** A migration's text as applied (line endings aside: a checkout with CRLF is the same migration). */
const checksumOf = (text: string): string => createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');

export interface MigrationRun {
  /** Migrations this run applied, in order. */
  applied: string[];
  /**
   * Migrations applied earlier whose file has changed since (tracked by name only, an edited
   * migration never runs again: the database keeps what the earlier text did).
   */
  changed: string[];
}

/**
 * Applies the checked-in SQL migrations in order, once each. One transaction holds an
 * advisory lock, so several processes starting together on one PostgreSQL apply them once.
 * A database a newer version migrated is refused: this build's SQL would write rows that the
 * newer schema's rules (guards, constraints, functions) were changed to treat otherwise.
 */
export async function migrate(db: Db): Promise<string[]> {
  return (await migrateAndCheck(db)).applied;
}

/**
 * `migrate`, also naming the applied migrations whose files changed since. Each applied
 * migration's checksum is kept beside its name (those applied by versions before checksums get
 * today's, on the assumption that they were not edited).
 */
export async function migrateAndCheck(db: Db): Promise<MigrationRun> {
  const applied: string[] = [];
  const changed: string[] = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(
      sql`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`,
    );
    await tx.execute(sql`alter table schema_migrations add column if not exists checksum text`);
    const done = (await tx.execute(sql`select name, checksum from schema_migrations`)) as unknown as {
      rows: { name: string; checksum: string | null }[];
    };
    const doneNames = new Set(done.rows.map((r) => r.name));
    const checksums = new Map(done.rows.map((r) => [r.name, r.checksum]));
    const files = migrationFiles();
    const known = new Set(files.map((f) => f.name));
    const newer = [...doneNames].filter((name) => !known.has(name)).sort();
    if (newer.length > 0) {
      throw new NewerSchemaError(
        `the database was migrated by a newer version of Paper Arena (${newer.at(-1)}; this version knows up to ${files.at(-1)?.name ?? 'none'}): run that version or a later one`,
      );
    }
    changed.push(...changedSince(checksums, files));
    for (const file of files) {
      const checksum = checksumOf(file.sql);
      if (doneNames.has(file.name)) {
        if (checksums.get(file.name) === null) await tx.execute(sql`update schema_migrations set checksum = ${checksum} where name = ${file.name}`);
        continue;
      }
      for (const statement of splitStatements(file.sql)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (name, checksum) values (${file.name}, ${checksum})`);
      applied.push(file.name);
    }
  });
  return { applied, changed };
}

/** Applied migrations (name → kept checksum, null when unknown) whose file differs now. */
function changedSince(kept: Map<string, string | null>, files: { name: string; sql: string }[]): string[] {
  return files.filter((f) => {
    const checksum = kept.get(f.name);
    return checksum != null && checksum !== checksumOf(f.sql);
  }).map((f) => f.name);
}

/**
 * Read-only (for `doctor`): the applied migrations whose file in this build differs from the
 * text the database ran. Every open migrates first, so the checksum column is there.
 */
export async function changedMigrations(db: Queryable): Promise<string[]> {
  const rows = await queryRows<{ name: string; checksum: string | null }>(db, sql`select name, checksum from schema_migrations`);
  return changedSince(new Map(rows.map((r) => [r.name, r.checksum])), migrationFiles());
}

/**
 * Statements end with a semicolon at the end of a line (drivers prepare one statement at a
 * time); semicolons inside a dollar-quoted body (`$$ … $$`, a function) do not end one.
 */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let inBody = false;
  for (const line of text.split('\n')) {
    if (!inBody && /^\s*--/.test(line)) continue;
    current += `${line}\n`;
    if (((line.match(/\$\$/g) ?? []).length) % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      statements.push(current.trim().replace(/;$/, ''));
      current = '';
    }
  }
  statements.push(current.trim());
  return statements.filter((s) => s.length > 0);
}
