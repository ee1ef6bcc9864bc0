/**
 * One process at a time on an embedded PGlite directory. PGlite has no lock of its own: two
 * processes on the same files (a restart that overlaps the old process's shutdown, two `npm
 * start` on one DATA_DIR, a CLI command while a server is still starting) corrupt the database
 * for good. `<dir>.lock` holds the owner's pid; a lock whose process is gone (SIGKILL, a crash)
 * is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive } from '../util/process-alive.js';

export class PgliteDirLockedError extends Error {}

function ownerOf(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null; // gone meanwhile, or unreadable: treated as stale
  }
}

/** Locks `dir` for this process; returns the release. Throws PgliteDirLockedError while a live process holds it. */
export function lockPgliteDir(dir: string): () => void {
  return lockDirectory(dir, 'the embedded database');
}

/** One process at a time on `dir` (what it holds: `what`, for the refusal); returns the release. */
export function lockDirectory(dir: string, what: string): () => void {
  const path = `${dir}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => {
        if (ownerOf(path) === process.pid) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(path);
    if (owner !== null && isAlive(owner)) {
      const who = owner === process.pid ? 'this process' : `another process (pid ${owner})`;
      throw new PgliteDirLockedError(
        `${what} in ${dir} is open in ${who}: stop it first (or use PostgreSQL, DATABASE_URL, for several processes); remove ${path} only if no such process runs`,
      );
    }
    rmSync(path, { force: true }); // its process is gone
  }
  throw new PgliteDirLockedError(`could not lock ${what} in ${dir} (${path} keeps changing)`);
}
