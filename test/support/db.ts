import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../src/storage/db.js';
import { adminQuery, pgTemplateName, withDatabase } from './pg-template.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const engineName = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDatabase {
  database: Database;
  /** Opens another connection pool to the same database (a second "process"), optionally named (applicationName). */
  openAnother(options?: { applicationName?: string }): Promise<Database>;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database on
 * the PostgreSQL server named by TEST_DATABASE_URL (dropped afterwards).
 */
export async function freshDatabase(options: { onQuery?: (text: string) => void; bookCache?: boolean } = {}): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const database = await openDatabase({ databaseUrl: null, pgliteDir: 'memory://', ...options });
    return {
      database,
      openAnother: () => Promise.reject(new Error('PGlite is single-process')),
      drop: () => database.close(),
    };
  }
  const name = `pa_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
  // from the migrated template the test setup made; a plain empty database (migrated on open) without one
  await adminQuery(TEST_DATABASE_URL, `create database ${name} template ${pgTemplateName()}`).catch(() => adminQuery(TEST_DATABASE_URL!, `create database ${name}`));
  const url = withDatabase(TEST_DATABASE_URL, name);
  const opened: Database[] = [];
  const open = async (extra: { applicationName?: string } = {}) => {
    const db = await openDatabase({ databaseUrl: url, pgliteDir: 'memory://', poolMax: 10, ...options, ...extra });
    opened.push(db);
    return db;
  };
  const database = await open();
  return {
    database,
    openAnother: (extra) => open(extra),
    async drop() {
      await Promise.all(opened.map((d) => d.close().catch(() => undefined)));
      await adminQuery(TEST_DATABASE_URL, `drop database if exists ${name} with (force)`);
    },
  };
}
