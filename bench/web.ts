/**
 * `npx tsx bench/web.ts` — server time of the web pages: starts the service as a user runs it
 * (PGlite, the full coin universe, house agents trading) and sends BENCH_WEB_REQUESTS (200)
 * requests per page at BENCH_WEB_CONNECTIONS (20) concurrent connections with autocannon.
 * Latency is request to full response; each page leaves in one write, so it is the time to
 * first byte plus one send. Prints and writes bench/results/web-latest.json.
 */
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startChild, stopChild, waitReady } from './lib/processes.js';
import { machineInfo } from './lib/report.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const REQUESTS = Number(process.env.BENCH_WEB_REQUESTS ?? 200);
const CONNECTIONS = Number(process.env.BENCH_WEB_CONNECTIONS ?? 20);
const PAGES = (process.env.BENCH_WEB_PAGES ?? '/arena,/markets').split(',');
const log = (line: string) => console.log(`[web-bench] ${line}`);

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-bench-web-'));
  const port = await freePort();
  const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env;
  const child = startChild('server', process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: repoRoot,
    env: { ...env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', PUBLIC_RPM: '1000000', ADMIN_TOKEN: 'bench-admin-token-0123456789' },
    logFile: join(dataDir, 'server.log'),
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    log(`started in ${await waitReady(child, `${base}/readyz`, 300_000)} ms`);
    // Until the prediction-market back-fill has run, /markets is empty (and cheaper).
    for (let i = 0; i < 120; i += 1) {
      if ((await (await fetch(`${base}/markets`)).text()).includes('/markets/')) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const results: Record<string, unknown>[] = [];
    for (const path of PAGES) {
      await fetch(`${base}${path}`); // build the caches once, as any visitor would
      // `amount` (a fixed request count) is an autocannon option our minimal typings leave out.
      const r = await autocannon({ url: `${base}${path}`, connections: CONNECTIONS, amount: REQUESTS, timeout: 10 } as autocannon.Options);
      const row = { path, requests: r.requests.total, connections: CONNECTIONS, p50Ms: r.latency.p50, p90Ms: r.latency.p90, p99Ms: r.latency.p99, maxMs: r.latency.max, non2xx: r.non2xx, errors: r.errors };
      log(`${path}: p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, max ${row.maxMs} ms (${row.requests} requests, ${row.non2xx} non-2xx)`);
      results.push(row);
    }
    mkdirSync(join(benchDir, 'results'), { recursive: true });
    writeFileSync(join(benchDir, 'results', 'web-latest.json'), `${JSON.stringify({ machine: machineInfo(repoRoot), at: new Date().toISOString(), results }, null, 2)}\n`);
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
