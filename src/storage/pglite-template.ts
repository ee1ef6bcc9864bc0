/**
 * A ready PGlite database — initdb plus every migration — made once by the build
 * (bin/build.mjs, run by `npm ci`) in dist/pglite-template. A first start copies it instead of
 * creating a cluster (initdb: seconds of WebAssembly) and applying the migrations one by one.
 * It is the same database by construction: the same migrations, applied by the same code. A
 * copy is used only when its stamp (PGlite version + the migration files) matches this
 * checkout; otherwise a first start creates the database as before.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyDirectoryAtomically } from '../util/copy-directory.js';
import { projectPath } from '../util/project-files.js';
import { openDatabase } from './db.js';
import { migrationFiles } from './migrate.js';

const TEMPLATE_DIR = projectPath('dist', 'pglite-template');
const STAMP_FILE = `${TEMPLATE_DIR}.json`;

function pgliteVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** What the template's content depends on. */
export function templateStamp(): string {
  const hash = createHash('sha256').update(`pglite ${pgliteVersion()}\n`);
  for (const file of migrationFiles()) hash.update(`${file.name}\n${file.sql}\n`);
  return hash.digest('hex');
}

function templateIsCurrent(): boolean {
  try {
    return existsSync(join(TEMPLATE_DIR, 'PG_VERSION')) && (JSON.parse(readFileSync(STAMP_FILE, 'utf8')) as { stamp: string }).stamp === templateStamp();
  } catch {
    return false;
  }
}

/** Copies the template to `dir` (absent or empty) when it is current; false when there is none. */
export function copyPgliteTemplate(dir: string): boolean {
  if (!templateIsCurrent()) return false;
  copyDirectoryAtomically(TEMPLATE_DIR, dir);
  return true;
}

/** Builds dist/pglite-template when missing or stale (the build calls it). */
export async function buildPgliteTemplate(): Promise<'current' | 'built'> {
  if (templateIsCurrent()) return 'current';
  const tmp = `${TEMPLATE_DIR}.build-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const database = await openDatabase({ databaseUrl: null, pgliteDir: tmp }); // creates the cluster and applies the migrations
  await database.close();
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  renameSync(tmp, TEMPLATE_DIR);
  writeFileSync(STAMP_FILE, JSON.stringify({ stamp: templateStamp() }));
  return 'built';
}
