/**
 * Watches a fresh install as a user would (PGlite, SIM_PROFILE=fast, empty DATA_DIR) over
 * HTTP: when /readyz answers 200, and when the PM house forecaster's first open and first
 * settled decisions show on /api/arena/decisions. Writes bench/results/forecaster-live.json.
 * Run: npx tsx bench/forecaster-live.ts   (gives up after LIMIT_MINUTES, default 15)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startChild, stopChild, waitReady } from './lib/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench', 'results');
mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'pa-forecaster-'));
const limitMs = Number(process.env.LIMIT_MINUTES ?? 15) * 60_000;

async function get(url: string): Promise<any> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return response.status === 200 ? response.json() : null;
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const started = performance.now();
const since = () => Math.round((performance.now() - started) / 1000);
const child = startChild('forecaster', process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
  cwd: root,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, SIM_PROFILE: 'fast', LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
  logFile: join(resultsDir, 'tmp', 'forecaster-live.log'),
});
const result: Record<string, unknown> = { at: new Date().toISOString(), loadAverageAtStart: loadavg()[0] };
try {
  await waitReady(child, `${base}/readyz`, 120_000);
  result.readySeconds = since();
  let handle: string | null = null;
  while (performance.now() - started < limitMs && (result.firstSettledSeconds === undefined || result.firstOpenSeconds === undefined)) {
    if (!handle) {
      const board = await get(`${base}/api/arena`);
      handle = (board?.rows ?? []).map((r: { handle: string }) => r.handle).find((h: string) => h.endsWith('-pm-forecaster-house')) ?? null;
    }
    if (handle) {
      const open = await get(`${base}/api/arena/decisions?status=open&agent=${handle}`);
      if (result.firstOpenSeconds === undefined && open?.count > 0) result.firstOpenSeconds = since();
      const settled = await get(`${base}/api/arena/decisions?agent=${handle}`);
      if (result.firstSettledSeconds === undefined && settled?.count > 0) {
        result.firstSettledSeconds = since();
        result.firstSettled = settled.decisions[0];
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  result.handle = handle;
} finally {
  await stopChild(child);
  rmSync(dataDir, { recursive: true, force: true });
}
writeFileSync(join(resultsDir, 'forecaster-live.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
