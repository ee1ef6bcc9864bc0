import { cpSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isAlive } from './process-alive.js';

/**
 * Replaces `to` with a copy of `from` (less the top-level names in `omit`). Copied beside and
 * renamed: an interrupted copy never looks like a finished one. Call it under a lock on `to`:
 * copies left by processes that died mid-copy (a SIGTERM during a first start) are removed.
 */
export function copyDirectoryAtomically(from: string, to: string, omit: readonly string[] = []): void {
  removeAbandonedCopies(to);
  const tmp = `${to}.copy-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(from, tmp, { recursive: true });
  for (const name of omit) rmSync(join(tmp, name), { recursive: true, force: true });
  rmSync(to, { recursive: true, force: true });
  renameSync(tmp, to);
}

/** `<to>.copy-<pid>` directories whose process is gone (tens of MB each, kept for good before). */
function removeAbandonedCopies(to: string): void {
  const prefix = `${basename(to)}.copy-`;
  let names: string[];
  try {
    names = readdirSync(dirname(to));
  } catch {
    return; // no parent yet: nothing left behind
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)) rmSync(join(dirname(to), name), { recursive: true, force: true });
  }
}
