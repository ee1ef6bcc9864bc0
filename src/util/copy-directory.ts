import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Replaces `to` with a copy of `from` (less the top-level names in `omit`). Copied beside and
 * renamed: an interrupted copy never looks like a finished one.
 */
export function copyDirectoryAtomically(from: string, to: string, omit: readonly string[] = []): void {
  const tmp = `${to}.copy-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(from, tmp, { recursive: true });
  for (const name of omit) rmSync(join(tmp, name), { recursive: true, force: true });
  rmSync(to, { recursive: true, force: true });
  renameSync(tmp, to);
}
