import { buildPgliteTemplate } from '../../src/storage/pglite-template.js';

/**
 * Every test file's in-memory PGlite starts from the build's migrated database
 * (src/storage/pglite-template.ts): made here when a migration changed since the last build,
 * so a test run never pays initdb and the migrations once per file.
 */
export default async function setup(): Promise<void> {
  await buildPgliteTemplate();
}
