/**
 * Times the service's start-up as a user runs it (PGlite, simulated market): a cold start
 * on an empty DATA_DIR (back-fills every candle range) and a restart on the same DATA_DIR
 * (resumes from the checkpoint), each until GET /healthz answers. Writes
 * bench/results/market-startup.json. Run: npx tsx bench/market-startup.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sampleMemory, startChild, stopChild, waitReady } from './lib/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench', 'results');
mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'pa-startup-'));

async function timeStart(label: string): Promise<{ ms: number; rssMb: number | null }> {
  const port = await freePort();
  const started = performance.now();
  const child = startChild(label, process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
    logFile: join(resultsDir, 'tmp', `startup-${label}.log`),
  });
  await waitReady(child, `http://127.0.0.1:${port}/healthz`, 120_000);
  const ms = Math.round(performance.now() - started);
  const rssMb = sampleMemory(child.pid)?.rssMb ?? null;
  await stopChild(child);
  return { ms, rssMb };
}

try {
  const loadAtStart = loadavg()[0];
  const cold = await timeStart('cold');
  const restart = await timeStart('restart');
  const result = { at: new Date().toISOString(), loadAverageAtStart: loadAtStart, coldStartMs: cold.ms, restartMs: restart.ms, rssMbAfterColdStart: cold.rssMb, rssMbAfterRestart: restart.rssMb };
  writeFileSync(join(resultsDir, 'market-startup.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
