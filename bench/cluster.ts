/**
 * `npm run bench:cluster` — the multi-process deployment, proven on this machine: two `api`
 * processes and one `worker` on one PostgreSQL database and one Redis, then:
 *   1. rate limits are exact across processes (250 concurrent calls with one key over both → 120 admitted);
 *   2. SSE fan-out: a subscriber on each API process receives the same events with the same ids;
 *   3. leadership failover: a standby worker runs nothing while the leader lives; SIGKILL the leader,
 *      start another worker; jobs resume within 10 s and no job runs twice (from the job-run records);
 *   4. rolling restart of both API processes (SIGTERM, drain) under steady load → 0 failed requests;
 *   5. throughput of two API processes against one (short autocannon runs).
 * Prints each result and writes bench/results/cluster.json. Exit code 1 when a check fails.
 * Settings: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379), BENCH_CLUSTER_SECONDS (throughput seconds per run, 5).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { measure } from './lib/load.js';
import { createBenchDatabase, type BenchDatabase } from './lib/postgres.js';
import { freePort, startChild, stopAllChildren, stopChild, waitReady, type Child } from './lib/processes.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const resultsDir = join(benchDir, 'results');
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const THROUGHPUT_S = Number(process.env.BENCH_CLUSTER_SECONDS) > 0 ? Number(process.env.BENCH_CLUSTER_SECONDS) : 5;
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const AGENT_RPM = 120;
const BURST = 250;
const DRAIN_MS = process.env.BENCH_CLUSTER_DRAIN_MS !== undefined ? Number(process.env.BENCH_CLUSTER_DRAIN_MS) : 2000;
const LOAD_ROUTE = '/api/prediction-markets/events?limit=5';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`[cluster] ${line}\n`);
const results: Record<string, unknown> = {};
let failed = 0;
function verdict(name: string, pass: boolean, line: string, detail: unknown): void {
  if (!pass) failed += 1;
  results[name] = { pass, ...(detail as object) };
  say(`${pass ? 'PASS' : 'FAIL'} ${name}: ${line}`);
}

// ---------------------------------------------------------------- processes

type Role = 'api' | 'worker';
interface Proc {
  label: string;
  role: Role;
  /** API port, or the worker's METRICS_PORT */
  port: number;
  child: Child;
}

let database: BenchDatabase;
let workDir: string;

function start(label: string, role: Role, port: number): Proc {
  const logFile = join(resultsDir, 'tmp', `cluster-${label}.log`);
  rmSync(logFile, { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    REDIS_URL,
    ADMIN_TOKEN,
    HOST: '127.0.0.1',
    DATA_DIR: join(workDir, label),
    SIM_PROFILE: 'fast',
    AGENT_RPM: String(AGENT_RPM),
    PUBLIC_RPM: '1000000000',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    // The worker logs every job run at info: these lines are the job-run records read below.
    LOG_LEVEL: role === 'worker' ? 'info' : 'warn',
    ...(role === 'api' ? { PORT: String(port) } : { PORT: '0', METRICS_PORT: String(port) }),
  };
  const child = startChild(label, process.execPath, ['--import', 'tsx', 'src/main.ts', role], { cwd: repoRoot, env, logFile });
  return { label, role, port, child };
}

const base = (p: Proc) => `http://127.0.0.1:${p.port}`;
const ready = (p: Proc) => waitReady(p.child, p.role === 'api' ? `${base(p)}/readyz` : `${base(p)}/metrics`, 120_000);
/** Listening (liveness); an api process is ready only once a worker has loaded PM data. */
const live = (p: Proc) => waitReady(p.child, `${base(p)}/healthz`, 120_000);

interface JobRunRecord {
  job: string;
  startedAtMs: number;
  durationMs: number;
  proc: string;
}

function jobRuns(p: Proc): JobRunRecord[] {
  const runs: JobRunRecord[] = [];
  for (const line of readFileSync(p.child.logFile, 'utf8').split('\n')) {
    if (!line.includes('"job ran"')) continue;
    try {
      const r = JSON.parse(line) as { job: string; startedAtMs: number; durationMs: number };
      runs.push({ job: r.job, startedAtMs: r.startedAtMs, durationMs: r.durationMs, proc: p.label });
    } catch {
      /* a torn last line of a killed process */
    }
  }
  return runs;
}

// ---------------------------------------------------------------- 1. rate limits

async function rateLimits(api: Proc[]): Promise<void> {
  const created = (await fetch(`${base(api[0]!)}/api/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'cluster', name: 'burst', scopes: ['read'] }),
  }).then((r) => r.json())) as { key: string; keyId: number };
  // Counters live in one-minute windows: keep the burst inside one of them.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await sleep(60_000 - intoMinute + 500);
  const statuses = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      fetch(`${base(api[i % 2]!)}/api/agent/me`, { headers: { authorization: `Bearer ${created.key}` } })
        .then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        })
        .catch(() => 0),
    ),
  );
  const count = (s: number) => statuses.filter((x) => x === s).length;
  const perProcess = api.map((_, k) => statuses.filter((s, i) => i % 2 === k && s === 200).length);
  verdict(
    'rate limits across processes',
    count(200) === AGENT_RPM && count(429) === BURST - AGENT_RPM,
    `${BURST} concurrent calls with one key over 2 API processes → ${count(200)} admitted (${perProcess.join(' + ')}), ${count(429)} refused with 429, ${BURST - count(200) - count(429)} other`,
    { requests: BURST, admitted: count(200), refused: count(429), admittedPerProcess: perProcess },
  );
}

// ---------------------------------------------------------------- 2. SSE fan-out

interface StreamEvent {
  id: number;
  kind: string;
  body: string;
}

function subscribe(p: Proc): { events: StreamEvent[]; close(): void } {
  const events: StreamEvent[] = [];
  const req = http.get(`${base(p)}/api/prediction-markets/stream`, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const id = /^id: (\d+)$/m.exec(frame)?.[1];
        const kind = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!id || !kind || !data) continue;
        // pushedAt is each process's own send time; everything else must match.
        const { pushedAt: _p, ...rest } = JSON.parse(data) as Record<string, unknown>;
        events.push({ id: Number(id), kind, body: JSON.stringify(rest) });
      }
    });
  });
  req.on('error', () => undefined);
  return { events, close: () => req.destroy() };
}

async function sseFanout(subs: { events: StreamEvent[]; close(): void }[], wanted: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && subs.some((s) => s.events.length < wanted + 1)) await sleep(250);
  await sleep(1000); // the last event reaches the slower process too
  for (const s of subs) s.close();
  // Compare the window both subscribers were connected for.
  const [a, b] = subs.map((s) => s.events);
  const from = Math.max(a![0]?.id ?? Infinity, b![0]?.id ?? Infinity);
  const to = Math.min(a!.at(-1)?.id ?? -Infinity, b!.at(-1)?.id ?? -Infinity);
  const inWindow = (list: StreamEvent[]) => list.filter((e) => e.id >= from && e.id <= to);
  const wa = inWindow(a!);
  const wb = inWindow(b!);
  const same = wa.length === wb.length && wa.every((e, i) => e.id === wb[i]!.id && e.kind === wb[i]!.kind && e.body === wb[i]!.body);
  verdict(
    'SSE fan-out',
    same && wa.length >= wanted,
    `api-1 and api-2 each received ${wa.length} events in the common window, ids ${wa.map((e) => `${e.id}:${e.kind}`).join(', ')}; ${same ? 'same ids, kinds and payloads' : 'they DIFFER'}`,
    { events: wa.length, ids: wa.map((e) => e.id), identical: same, api2Ids: wb.map((e) => e.id) },
  );
}

// ---------------------------------------------------------------- 3. failover

async function failover(leader: Proc): Promise<Proc> {
  const standby = start('worker-2', 'worker', await freePort());
  await ready(standby);
  await sleep(5000);
  const killAt = Date.now();
  process.kill(-leader.child.pid, 'SIGKILL');
  await leader.child.exited;
  const replacement = start('worker-3', 'worker', await freePort());
  const leaderJobs = [...new Set(jobRuns(leader).map((r) => r.job))];
  const resumedAt = new Map<string, number>();
  while (Date.now() - killAt < 20_000 && resumedAt.size < leaderJobs.length) {
    for (const r of jobRuns(standby)) if (r.startedAtMs >= killAt && !resumedAt.has(r.job)) resumedAt.set(r.job, r.startedAtMs);
    await sleep(200);
  }
  await ready(replacement);
  await sleep(4000); // the replacement is the new standby: it must stay idle

  const all = [leader, standby, replacement].flatMap(jobRuns);
  const standbyBeforeKill = jobRuns(standby).filter((r) => r.startedAtMs < killAt).length;
  const replacementRuns = jobRuns(replacement).length;
  // Two runs of one job overlapping in time on different processes = ran twice.
  let overlaps = 0;
  for (const job of new Set(all.map((r) => r.job))) {
    const runs = all.filter((r) => r.job === job).sort((x, y) => x.startedAtMs - y.startedAtMs);
    for (let i = 1; i < runs.length; i += 1) {
      const prev = runs[i - 1]!;
      if (runs[i]!.proc !== prev.proc && runs[i]!.startedAtMs < prev.startedAtMs + prev.durationMs) overlaps += 1;
    }
  }
  const resumeMs = leaderJobs.map((job) => ({ job, ms: resumedAt.has(job) ? resumedAt.get(job)! - killAt : null }));
  const slowest = Math.max(...resumeMs.map((r) => r.ms ?? Infinity));
  verdict(
    'leadership failover',
    slowest <= 10_000 && standbyBeforeKill === 0 && replacementRuns === 0 && overlaps === 0,
    `SIGKILL of the leading worker → every job (${leaderJobs.length}) resumed on the standby within ${Number.isFinite(slowest) ? `${(slowest / 1000).toFixed(1)} s` : 'NEVER'} ` +
      `(${resumeMs.map((r) => `${r.job} ${r.ms === null ? '-' : (r.ms / 1000).toFixed(1)}s`).join(', ')}); ` +
      `job-run records: ${all.length} runs, ${standbyBeforeKill} by the standby while the leader lived, ${replacementRuns} by the new standby, ${overlaps} overlapping runs`,
    { jobs: leaderJobs.length, resumeMs, slowestResumeMs: slowest, runs: all.length, standbyRunsBeforeKill: standbyBeforeKill, replacementRuns, overlaps },
  );
  await stopChild(leader.child);
  await stopChild(standby.child, 15_000);
  return replacement;
}

// ---------------------------------------------------------------- 4. rolling restart

/**
 * A load balancer in miniature: round-robin over the backends whose /readyz answers 200
 * (checked every 250 ms), retrying a request once elsewhere only when the connection itself
 * failed (as nginx's proxy_next_upstream error does); any non-200 answer is a failure.
 */
async function rollingRestart(api: Proc[]): Promise<Proc[]> {
  const up = new Map<Proc, boolean>(api.map((p) => [p, true]));
  let stop = false;
  const health = (async () => {
    while (!stop) {
      await Promise.all(
        [...up.keys()].map(async (p) => {
          const ok = await fetch(`${base(p)}/readyz`, { signal: AbortSignal.timeout(1000) })
            .then(async (r) => (await r.arrayBuffer(), r.status === 200))
            .catch(() => false);
          up.set(p, ok);
        }),
      );
      await sleep(250);
    }
  })();
  let next = 0;
  const pick = (not?: Proc) => {
    const live = [...up.entries()].filter(([p, ok]) => ok && p !== not).map(([p]) => p);
    return live.length ? live[next++ % live.length]! : null;
  };
  const tally = { ok: 0, failed: 0, retried: 0, reasons: {} as Record<string, number> };
  const fail = (reason: string) => {
    tally.failed += 1;
    tally.reasons[reason] = (tally.reasons[reason] ?? 0) + 1;
  };
  const once = (p: Proc) => fetch(`${base(p)}${LOAD_ROUTE}`).then(async (r) => (await r.arrayBuffer(), r.status));
  const loops = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const first = pick();
      if (!first) {
        fail('no backend up');
        await sleep(50);
        continue;
      }
      let status: number;
      try {
        status = await once(first);
      } catch {
        const second = pick(first);
        tally.retried += 1;
        status = second ? await once(second).catch(() => 0) : 0;
      }
      if (status === 200) tally.ok += 1;
      else fail(status === 0 ? 'connection error' : `HTTP ${status}`);
      await sleep(20);
    }
  });

  await sleep(3000);
  const exits: (number | null)[] = [];
  const restarted: Proc[] = [];
  for (const old of api) {
    await stopChild(old.child, 20_000);
    exits.push(old.child.exit?.code ?? null);
    up.delete(old);
    const fresh = start(`${old.label}b`, 'api', old.port);
    await ready(fresh);
    up.set(fresh, false); // in rotation from its first good health check
    while (!up.get(fresh)) await sleep(50);
    restarted.push(fresh);
    await sleep(2000);
  }
  stop = true;
  await Promise.all([...loops, health]);
  verdict(
    'rolling restart',
    tally.failed === 0 && exits.every((c) => c === 0),
    `both API processes restarted in turn (SIGTERM, ${DRAIN_MS} ms drain, exit codes ${exits.join(', ')}) under ~8 concurrent clients: ` +
      `${tally.ok} ok, ${tally.failed} failed${tally.failed ? ` (${JSON.stringify(tally.reasons)})` : ''}, ${tally.retried} connection-level retries`,
    { ...tally, exitCodes: exits, drainMs: DRAIN_MS },
  );
  return restarted;
}

// ---------------------------------------------------------------- 5. throughput

async function throughput(api: Proc[]): Promise<void> {
  const settings = { duration: THROUGHPUT_S, warmup: 1, connections: 20, pipelining: 1, timeout: 10 };
  const request = [{ method: 'GET' as const, path: LOAD_ROUTE }];
  const one = await measure(base(api[0]!), request, settings);
  const two = await Promise.all(api.map((p) => measure(base(p), request, { ...settings, connections: settings.connections / 2 })));
  const twoRps = two.reduce((s, m) => s + m.reqPerSec, 0);
  const errors = one.errors + one.non2xx + two.reduce((s, m) => s + m.errors + m.non2xx, 0);
  verdict(
    'throughput',
    errors === 0,
    `GET ${LOAD_ROUTE}, 20 connections, ${THROUGHPUT_S} s: one API process ${one.reqPerSec} req/s (p99 ${one.latencyP99Ms} ms); ` +
      `two API processes ${Math.round(twoRps)} req/s (×${(twoRps / one.reqPerSec).toFixed(2)}, p99 ${two.map((m) => m.latencyP99Ms).join('/')} ms); ` +
      `errors ${errors}. The load generator shares this machine's CPUs with both processes and PostgreSQL.`,
    { oneProcessRps: one.reqPerSec, twoProcessesRps: Math.round(twoRps), ratio: twoRps / one.reqPerSec, errors },
  );
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    say(`Redis does not answer at ${REDIS_URL} (${error instanceof Error ? error.message : error}); set BENCH_REDIS_URL`);
    process.exit(1);
  } finally {
    redis.disconnect();
  }
  const created = await createBenchDatabase(PG_URL);
  if ('skipped' in created) {
    say(`PostgreSQL unavailable at ${PG_URL}: ${created.skipped}; set BENCH_PG_URL`);
    process.exit(1);
  }
  database = created;
  workDir = mkdtempSync(join(tmpdir(), 'paper-arena-cluster-'));
  mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
  say(`database ${database.name}, Redis ${REDIS_URL}, ${cpus().length} CPUs; logs in bench/results/tmp/cluster-*.log`);

  try {
    const startedAt = Date.now();
    const api1 = start('api-1', 'api', await freePort());
    await live(api1); // the first process migrates the database; the others find it migrated
    let api = [api1, start('api-2', 'api', await freePort())];
    const worker = start('worker-1', 'worker', await freePort());
    // Ready means data: the api processes turn ready once the worker's first PM ingest is stored.
    await Promise.all([ready(api[0]!), ready(api[1]!), ready(worker)]);
    say(`2 api + 1 worker ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

    const subs = api.map(subscribe);
    await rateLimits(api);
    await sseFanout(subs, 3);
    const nextWorker = await failover(worker);
    api = await rollingRestart(api);
    await throughput(api);
    await stopChild(nextWorker.child, 15_000);
    for (const p of api) await stopChild(p.child, 15_000);
  } catch (error) {
    failed += 1;
    say(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await stopAllChildren();
    await database.drop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
  writeFileSync(join(resultsDir, 'cluster.json'), `${JSON.stringify({ at: new Date().toISOString(), cpus: cpus().length, results }, null, 2)}\n`);
  say(failed === 0 ? 'all checks passed' : `${failed} check(s) failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

process.on('SIGINT', () => void stopAllChildren().then(() => process.exit(130)));
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
