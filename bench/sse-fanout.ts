/**
 * `npm run bench:sse` — SSE fan-out of /api/prediction-markets/stream as a whole run:
 * starts the service (PGlite, SIM_PROFILE=fast so the ingest job publishes deltas every
 * ~15 s), opens BENCH_SSE_SUBSCRIBERS (1,000) concurrent streams (distinct
 * X-Forwarded-For addresses with TRUST_PROXY, so the per-IP cap is not what is measured),
 * waits for BENCH_SSE_EVENTS (4) events, and reports per-delivery fan-out latency
 * (receive time − the hub's `pushedAt` stamp, same machine clock), whether every
 * subscriber got every event, and the service's RSS idle vs. under the subscribers.
 * Writes bench/results/sse-fanout.json and prints the figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sampleMemory, startChild, stopAllChildren, stopChild, waitReady } from './lib/processes.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const resultsDir = join(benchDir, 'results');
const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const SUBSCRIBERS = envInt('BENCH_SSE_SUBSCRIBERS', 1000);
const EVENTS = envInt('BENCH_SSE_EVENTS', 4);
const TIMEOUT_S = envInt('BENCH_SSE_TIMEOUT', 180);
const log = (line: string) => process.stdout.write(`[sse-fanout] ${line}\n`);

interface Subscriber {
  req: http.ClientRequest;
  received: Map<number, number>;
}

function subscribe(port: number, i: number, latencies: number[], seen: Map<number, number>, since: { t: number }): Promise<Subscriber> {
  return new Promise((resolveSub, reject) => {
    const sub: Subscriber = { req: null as unknown as http.ClientRequest, received: new Map() };
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    sub.req = http.get({ host: '127.0.0.1', port, path: '/api/prediction-markets/stream', headers: { 'x-forwarded-for': ip }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscriber ${i}: HTTP ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = Date.now();
        buf += chunk;
        let cut;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const id = /^id: (\d+)$/m.exec(frame);
          const data = /^data: (.*)$/m.exec(frame);
          if (!id || !data) continue;
          const pushedAt = Date.parse(JSON.parse(data[1]!).pushedAt);
          if (pushedAt < since.t) continue;
          const n = Number(id[1]);
          sub.received.set(n, now - pushedAt);
          latencies.push(now - pushedAt);
          seen.set(n, (seen.get(n) ?? 0) + 1);
        }
      });
      resolveSub(sub);
    });
    sub.req.on('error', reject);
  });
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : null);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-sse-'));
  const port = await freePort();
  mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
  const child = startChild('sse-service', process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: randomBytes(24).toString('hex'), LOG_LEVEL: 'warn', SIM_PROFILE: 'fast', TRUST_PROXY: 'true', PUBLIC_RPM: '100000000', REDIS_URL: '' },
    logFile: join(resultsDir, 'tmp', 'service-sse.log'),
  });
  try {
    const readyMs = await waitReady(child, `http://127.0.0.1:${port}/readyz`);
    log(`service ready in ${readyMs} ms; waiting for the first ingest (back-fill)…`);
    for (let i = 0; i < 120; i += 1) {
      const r = await fetch(`http://127.0.0.1:${port}/api/prediction-markets/events?limit=1`).then((x) => x.json() as Promise<{ data: unknown[] }>);
      if (r.data.length > 0) break;
      await new Promise((r2) => setTimeout(r2, 500));
    }
    const idle = sampleMemory(child.pid);
    const latencies: number[] = [];
    const seen = new Map<number, number>();
    const since = { t: Number.POSITIVE_INFINITY };
    const subs: Subscriber[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 50) {
      subs.push(...(await Promise.all(Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, k) => subscribe(port, i + k, latencies, seen, since)))));
    }
    since.t = Date.now();
    const loaded = sampleMemory(child.pid);
    log(`${subs.length} subscribers connected; waiting for ${EVENTS} events (deltas every ~15 s)…`);
    const deadline = Date.now() + TIMEOUT_S * 1000;
    while (seen.size < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await new Promise((r) => setTimeout(r, 1500)); // let the last event reach everyone
    const peak = sampleMemory(child.pid);
    const ids = [...seen.keys()].sort((a, b) => a - b).slice(0, EVENTS);
    const complete = ids.filter((id) => subs.every((s) => s.received.has(id))).length;
    const measured = subs.flatMap((s) => ids.map((id) => s.received.get(id)).filter((v): v is number => v !== undefined)).sort((a, b) => a - b);
    const result = {
      at: new Date().toISOString(),
      subscribers: subs.length,
      events: ids.length,
      eventsDeliveredToEverySubscriber: complete,
      deliveries: measured.length,
      expectedDeliveries: subs.length * ids.length,
      fanoutLatencyMs: { p50: quantile(measured, 0.5), p99: quantile(measured, 0.99), max: measured[measured.length - 1] ?? null },
      serviceRssMb: { idle: idle?.rssMb ?? null, with1000Subscribers: loaded?.rssMb ?? null, afterEvents: peak?.rssMb ?? null, peak: peak?.peakRssMb ?? null },
      note: 'latency = subscriber receive time − hub pushedAt (same machine clock); load generator and service share the CPUs',
    };
    for (const s of subs) s.req.destroy();
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'sse-fanout.json'), `${JSON.stringify(result, null, 2)}\n`);
    log(JSON.stringify(result, null, 2));
    if (ids.length < EVENTS || complete < ids.length) process.exitCode = 1;
  } finally {
    await stopChild(child);
    await stopAllChildren();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
