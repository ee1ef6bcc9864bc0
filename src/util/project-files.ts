/**
 * Paths of the project's own files (SQL migrations, coins, docs, page assets). Found from the
 * project root, not from the calling module: the same code runs from src/ (tsx, tests) and
 * compiled into dist/main.js (bin/build.mjs), whose modules all share one location.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('paper-arena: package.json not found above the program');
    dir = parent;
  }
  return dir;
}

const ROOT = findRoot();

/** `projectPath('src', 'storage', 'migrations')` → the absolute path under the project root. */
export const projectPath = (...parts: string[]): string => join(ROOT, ...parts);
