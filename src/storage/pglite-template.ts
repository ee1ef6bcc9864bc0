/**
 * A ready PGlite database — initdb plus every migration — made once by the build
 * (bin/build.mjs, run by `npm ci`) in dist/pglite-template. A first start copies it instead of
 * creating a cluster (initdb: seconds of WebAssembly) and applying the migrations one by one.
 * dist/pglite-template.tar is the same database as PGlite's own dump: an in-memory database
 * (`memory://`, every test file's) loads it in ~0.4 s instead of ~3.5 s.
 * It is the same database by construction: the same migrations, applied by the same code. A
 * copy is used only when its stamp (PGlite version + the migration files) matches this
 * checkout; otherwise a first start creates the database as before.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { copyDirectoryAtomically } from '../util/copy-directory.js';
import { projectPath } from '../util/project-files.js';
import { openDatabase } from './db.js';
import { migrationFiles } from './migrate.js';

const TEMPLATE_DIR = projectPath('dist', 'pglite-template');
const TEMPLATE_DUMP = `${TEMPLATE_DIR}.tar`;
const STAMP_FILE = `${TEMPLATE_DIR}.json`;

function pgliteVersion(): string {
  // createRequire: import.meta.resolve is missing where tests run the sources (vite-node)
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** What the template's content depends on. */
export function templateStamp(): string {
  const hash = createHash('sha256').update(`pglite ${pgliteVersion()}\n`);
  for (const file of migrationFiles()) hash.update(`${file.name}\n${file.sql}\n`);
  return hash.digest('hex');
}

function stampIsCurrent(): boolean {
  try {
    return (JSON.parse(readFileSync(STAMP_FILE, 'utf8')) as { stamp: string }).stamp === templateStamp();
  } catch {
    return false;
  }
}

/** Checked apart: a dist/ built before the dump existed has a usable directory without one. */
const dirIsCurrent = () => existsSync(join(TEMPLATE_DIR, 'PG_VERSION')) && stampIsCurrent();
const dumpIsCurrent = () => existsSync(TEMPLATE_DUMP) && stampIsCurrent();

/** Copies the template to `dir` (absent or empty) when it is current; false when there is none. */
export function copyPgliteTemplate(dir: string): boolean {
  if (!dirIsCurrent()) return false;
  copyDirectoryAtomically(TEMPLATE_DIR, dir);
  return true;
}

/** The template as a PGlite dump file (for `loadDataDir`) when it is current; null otherwise. */
export function pgliteTemplateDump(): string | null {
  return dumpIsCurrent() ? TEMPLATE_DUMP : null;
}

/** Builds dist/pglite-template and its dump when missing or stale (the build and the test setup call it). */
export async function buildPgliteTemplate(): Promise<'current' | 'built'> {
  if (dirIsCurrent() && dumpIsCurrent()) return 'current';
  const tmp = `${TEMPLATE_DIR}.build-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const database = await openDatabase({ databaseUrl: null, pgliteDir: tmp }); // creates the cluster and applies the migrations
  await database.close();
  const copy = new PGlite(tmp);
  await copy.waitReady;
  const dump = await copy.dumpDataDir('none');
  await copy.close();
  writeFileSync(`${tmp}.tar`, Buffer.from(await dump.arrayBuffer()));
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  renameSync(tmp, TEMPLATE_DIR);
  renameSync(`${tmp}.tar`, TEMPLATE_DUMP);
  writeFileSync(STAMP_FILE, JSON.stringify({ stamp: templateStamp() }));
  return 'built';
}
