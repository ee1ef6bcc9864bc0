/**
 * A first start on PGlite copies the build's ready database when it has one for these
 * migrations (pglite-template.ts). Otherwise it creates its database cluster (initdb, several seconds of WebAssembly
 * and several hundred MB that WebAssembly memory never gives back). Done in a short-lived child
 * process, the main process meanwhile simulates the market's history and afterwards only opens
 * the finished directory (under a second, a third of the memory).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lockPgliteDir } from './pglite-lock.js';
import { copyPgliteTemplate } from './pglite-template.js';

const CHILD = `
const [url, dir] = process.argv.slice(1);
const { PGlite } = await import(url);
const client = new PGlite(dir);
await client.waitReady;
await client.close();
`;

/**
 * Resolves once `dir` holds an initialised cluster (at once when it already does). Under the
 * directory's lock (pglite-lock.ts): two processes starting on one empty DATA_DIR must not both
 * copy, the second replacing the files the first has already opened.
 */
export async function initPgliteDir(dir: string): Promise<'existing' | 'copied' | 'created'> {
  if (dir === 'memory://') return 'existing';
  const result = await initCluster(dir);
  keepPrivate(dir);
  return result;
}

/**
 * The database holds private ledgers and key hashes: only its owner may enter its directory,
 * as PostgreSQL demands of its data directory. This mode is what keeps them private: PGlite
 * creates the files inside with mode 0666 whatever the umask.
 */
function keepPrivate(dir: string): void {
  try {
    chmodSync(dir, 0o700);
  } catch {
    // not ours to change (another owner): left as the operator set it
  }
}

async function initCluster(dir: string): Promise<'existing' | 'copied' | 'created'> {
  if (existsSync(join(dir, 'PG_VERSION'))) return 'existing';
  const unlock = lockPgliteDir(dir);
  try {
    if (existsSync(join(dir, 'PG_VERSION'))) return 'existing';
    if (copyPgliteTemplate(dir)) return 'copied';
    await createCluster(dir);
    return 'created';
  } finally {
    unlock();
  }
}

async function createCluster(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const url = import.meta.resolve('@electric-sql/pglite');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, url, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`creating the PGlite database in ${dir} failed (exit ${code}): ${err.slice(-500)}`))));
  });
}
