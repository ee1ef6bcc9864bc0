import { buildPgliteTemplate } from '../../src/storage/pglite-template.js';
import { ensurePgTemplate } from './pg-template.js';

/**
 * Every test file's database starts migrated: an in-memory PGlite loads the build's migrated
 * database (src/storage/pglite-template.ts; made here when a migration changed since the last
 * build), a PostgreSQL one is created from a migrated template database (./pg-template.ts).
 * A test run never pays initdb and the migrations once per file.
 */
export default async function setup(): Promise<void> {
  await buildPgliteTemplate();
  if (process.env.TEST_DATABASE_URL) await ensurePgTemplate(process.env.TEST_DATABASE_URL);
}
