/**
 * `npx tsx bench/startup.ts` — wall clock of `npm start` as a user runs it: a first start on an
 * empty DATA_DIR, then a restart on the same DATA_DIR (PGlite, simulated market, 300 coins; or
 * PostgreSQL with DATABASE_URL, used as given). For each it records, from the moment `npm start`
 * is spawned: when /healthz answers, when /readyz answers 200, whether real data is served at
 * that moment (open PM events, the overview, a native price history with points, coin movers —
 * checked independently of /readyz, so a /readyz that lies shows), every progress line the
 * server printed with the time it arrived (the timeline), the CPU seconds the start used until
 * /readyz said ready (comparable across machine loads, unlike the wall clock), and the server
 * process's RSS once idle.
 *
 * Settings: STARTUP_RUNS (2: repeat the cold+restart pair and keep the median), IDLE_SECONDS (15),
 * START_COMMAND (`npm start`). Writes bench/results/startup.json (startup-postgres.json).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lib/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.STARTUP_RUNS ?? 2);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 15);
const START_COMMAND = process.env.START_COMMAND ?? 'npm start';
const databaseUrl = process.env.DATABASE_URL ?? '';

interface Started {
  healthzMs: number;
  readyzMs: number;
  /** CPU seconds (user + system, every process of the start) until /readyz answered 200. */
  cpuSecondsToReady: number;
  dataAtReadyz: boolean;
  dataMs: number;
  timeline: { ms: number; line: string }[];
  serverRssMb: number | null;
  groupRssMb: number | null;
}

async function status(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

async function json(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** True when the PM lists, the overview, a native venue's price history and the coin movers hold data. */
async function servesData(base: string): Promise<boolean> {
  try {
    const events = await json(`${base}/api/prediction-markets/events?status=open&source=polymarket&limit=5`);
    const list = (events.body as { data?: { slug?: string }[] } | null)?.data ?? [];
    if (events.status !== 200 || list.length === 0) return false;
    const overview = await json(`${base}/api/prediction-markets/overview`);
    if (overview.status !== 200 || !overview.body || Object.keys(overview.body as object).length === 0) return false;
    const history = await json(`${base}/api/prediction-markets/event/polymarket/${list[0]!.slug}/price-history?interval=1m`);
    const points = (history.body as { points?: unknown[] } | null)?.points ?? [];
    const gainers = await json(`${base}/api/coins/top-gainers`);
    return points.length > 0 && gainers.status === 200 && gainers.body !== null;
  } catch {
    return false;
  }
}

/** Pids in a process group (npm → sh → node), from /proc. */
function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** CPU seconds the group used so far: each live process's own plus its exited children's (a machine-load-independent cost). */
function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const pid of groupPids(pgid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // utime stime cutime cstime
    } catch {
      /* gone */
    }
  }
  return Math.round(ticks) / 100; // USER_HZ
}

function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

/** The server's RSS (the group's largest process: npm and sh are small) and the whole group's. */
function memory(pgid: number): { serverRssMb: number | null; groupRssMb: number | null } {
  const sizes = groupPids(pgid).map(rssMb).filter((v): v is number => v !== null);
  if (sizes.length === 0) return { serverRssMb: null, groupRssMb: null };
  return { serverRssMb: Math.max(...sizes), groupRssMb: Math.round(sizes.reduce((a, b) => a + b, 0) * 10) / 10 };
}

async function timeStart(dataDir: string): Promise<Started> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const [command, ...args] = START_COMMAND.split(' ');
  const started = performance.now();
  const since = () => Math.round(performance.now() - started);
  const child = spawn(command!, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, REDIS_URL: '' },
  });
  const timeline: { ms: number; line: string }[] = [];
  let pending = '';
  const onData = (chunk: Buffer) => {
    const ms = since();
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.trim()) timeline.push({ ms, line: line.trimEnd() });
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited = false;
  child.on('exit', () => (exited = true));
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* gone */
    }
  };
  process.once('exit', () => kill('SIGKILL'));
  try {
    const wait = async (what: string, check: () => Promise<boolean>) => {
      while (since() < 120_000) {
        if (exited) throw new Error(`the server exited while waiting for ${what}:\n${timeline.map((t) => t.line).join('\n')}`);
        if (await check()) return since();
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no ${what} after 120 s:\n${timeline.map((t) => t.line).join('\n')}`);
    };
    const healthzMs = await wait('/healthz', async () => (await status(`${base}/healthz`)) === 200);
    const readyzMs = await wait('/readyz 200', async () => (await status(`${base}/readyz`)) === 200);
    const cpuSecondsToReady = groupCpuSeconds(child.pid!);
    const dataAtReadyz = await servesData(base);
    const dataMs = dataAtReadyz ? readyzMs : await wait('data', () => servesData(base));
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    return { healthzMs, readyzMs, cpuSecondsToReady, dataAtReadyz, dataMs, timeline, ...memory(child.pid!) };
  } finally {
    kill('SIGTERM');
    const gone = new Promise((r) => child.once('exit', r));
    const timer = setTimeout(() => kill('SIGKILL'), 10_000);
    if (!exited) await gone;
    clearTimeout(timer);
    // npm may exit before its child: wait until the group is empty.
    for (let i = 0; i < 100 && groupPids(child.pid!).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

const runs: { loadAverage: number[]; cold: Started; restart: Started }[] = [];
for (let i = 0; i < RUNS; i++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pa-startup-'));
  try {
    const loadAverage = loadavg().map((l) => Math.round(l * 100) / 100);
    const cold = await timeStart(dataDir);
    const restart = await timeStart(dataDir);
    runs.push({ loadAverage, cold, restart });
    const brief = (s: Started) => `/readyz ${s.readyzMs} ms, ${s.cpuSecondsToReady} CPU s (data ${s.dataAtReadyz ? 'there' : `at ${s.dataMs} ms`}), server RSS ${s.serverRssMb} MB`;
    console.log(`run ${i + 1}/${RUNS} (load ${loadAverage.join(' ')}): first start ${brief(cold)}; restart ${brief(restart)}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const summary = (pick: (r: (typeof runs)[number]) => Started) => ({
  readyzMs: median(runs.map((r) => pick(r).readyzMs)),
  cpuSecondsToReady: median(runs.map((r) => pick(r).cpuSecondsToReady)),
  dataMs: median(runs.map((r) => pick(r).dataMs)),
  healthzMs: median(runs.map((r) => pick(r).healthzMs)),
  dataAtReadyzEveryRun: runs.every((r) => pick(r).dataAtReadyz),
  idleServerRssMb: median(runs.map((r) => pick(r).serverRssMb ?? NaN)),
});
const result = {
  at: new Date().toISOString(),
  command: START_COMMAND,
  database: databaseUrl ? 'postgres' : 'pglite',
  cpus: cpus().length,
  idleSeconds: IDLE_SECONDS,
  median: { firstStart: summary((r) => r.cold), restart: summary((r) => r.restart) },
  runs,
};
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', databaseUrl ? 'startup-postgres.json' : 'startup.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log('first start timeline (last run):');
for (const t of runs.at(-1)!.cold.timeline) console.log(`  ${String(t.ms).padStart(6)} ms  ${t.line}`);
console.log('restart timeline (last run):');
for (const t of runs.at(-1)!.restart.timeline) console.log(`  ${String(t.ms).padStart(6)} ms  ${t.line}`);
console.log(JSON.stringify(result.median, null, 2));
