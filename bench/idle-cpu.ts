/**
 * `npx tsx bench/idle-cpu.ts` — CPU an idle server burns on its own background work.
 *
 * Starts the service twice on a fresh PGlite DATA_DIR (or PostgreSQL with BENCH_PG_URL and
 * IDLE_ENGINE=postgres): `serve` (every job: sim ticks, PM ingest, house agents, snapshots,
 * arena jobs) and `api` (no scheduler; the in-memory market still ticks). After /readyz and a
 * settle time (start-up back-fills are not idle work), it reads the process's user+system CPU
 * from /proc/<pid>/stat over IDLE_SECONDS (default 60) and prints it as % of one core.
 * No requests are sent.
 */
import { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchDatabase } from './lib/postgres.js';
import { freePort, startChild, stopChild, waitReady } from './lib/processes.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const logsDir = join(repoRoot, 'bench', 'results', 'tmp');
const seconds = Number(process.env.IDLE_SECONDS ?? 60);
const settleSeconds = Number(process.env.IDLE_SETTLE_SECONDS ?? 30);
const engine = process.env.IDLE_ENGINE === 'postgres' ? 'postgres' : 'pglite';
const roles = (process.env.IDLE_ROLES ?? 'serve,api').split(',').map((r) => r.trim());
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** user + system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime (fields 14, 15)
}

async function measureRole(role: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `paper-arena-idle-${role}-`));
  const db = engine === 'postgres' ? await createBenchDatabase(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : null;
  if (db && 'skipped' in db) throw new Error(`PostgreSQL not usable: ${db.skipped}`);
  const port = await freePort();
  mkdirSync(logsDir, { recursive: true });
  const logFile = join(logsDir, `idle-${role}.log`);
  writeFileSync(logFile, '');
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  if (db) env.DATABASE_URL = db.url;
  const child = startChild(`idle-${role}`, process.execPath, ['--import', 'tsx', 'src/main.ts', role], { cwd: repoRoot, env, logFile });
  try {
    // An `api` process alone never turns ready (no worker ingests the prediction markets): it is measured once it answers.
    const readyMs = await waitReady(child, `http://127.0.0.1:${port}/${role === 'api' ? 'healthz' : 'readyz'}`, 120_000);
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    const before = cpuSeconds(child.pid);
    const startedAt = Date.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const used = cpuSeconds(child.pid) - before;
    const wall = (Date.now() - startedAt) / 1000;
    console.log(`${engine} ${role.padEnd(5)}: ${((used / wall) * 100).toFixed(2)} % of one core over ${wall.toFixed(0)} s idle (ready after ${readyMs} ms, settled ${settleSeconds} s)`);
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (db) await db.drop();
  }
}

for (const role of roles) await measureRole(role);
