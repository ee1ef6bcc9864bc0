/**
 * `npx tsx bench/route-cpu.ts` — server CPU per request, route by route: a figure that holds on a
 * busy machine, where req/s does not. Starts the bare-Fastify ceiling and the service
 * (`node --import tsx src/main.ts <role>`, PostgreSQL by default) like `npm run bench`, sends a
 * fixed number of requests per scenario with autocannon and reads the server process's CPU time
 * (`/proc/<pid>/stat`, user + system) before and after; the service's idle CPU over the same time
 * is subtracted. Prints CPU µs per request and its ratio to the ceiling's, its main thread's share and
 * that of its busiest other thread (on PGlite, the database thread), and the CPU per request of
 * the database backends (PostgreSQL) and of the load generator itself (this process).
 *
 * Settings: ROUTE_CPU_SCENARIOS (default: the in-memory and cached reads), ROUTE_CPU_REQUESTS
 * (20,000), ROUTE_CPU_CONNECTIONS (20), ROUTE_CPU_ENGINE (postgres | pglite), ROUTE_CPU_ROLE
 * (serve), ROUTE_CPU_PROFILE=1 (service started with --cpu-prof into bench/results/tmp/profiles),
 * ROUTE_CPU_DIRS (comma-separated source trees to compare side by side, default this one),
 * ROUTE_CPU_REPEAT (rounds: each starts every tree's service afresh, alternating the order of the
 * trees; the lowest figure of each row is kept).
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startChild, stopChild, waitReady, type Child } from './lib/processes.js';
import { createBenchDatabase, type BenchDatabase } from './lib/postgres.js';
import { requestsFor, scenarios, type ScenarioContext } from './scenarios.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const logsDir = join(repoRoot, 'bench', 'results', 'tmp');
const names = (process.env.ROUTE_CPU_SCENARIOS ?? 'agent-me,candles,market-context,resolve,pm-events-cached,pm-event-detail,leaderboard').split(',');
const amount = Number(process.env.ROUTE_CPU_REQUESTS ?? 20_000);
const connections = Number(process.env.ROUTE_CPU_CONNECTIONS ?? 20);
const engine = process.env.ROUTE_CPU_ENGINE ?? 'postgres';
const role = process.env.ROUTE_CPU_ROLE ?? 'serve';
const profile = process.env.ROUTE_CPU_PROFILE === '1';
// Several source trees (e.g. an export of the base commit) are measured one after the other in one run.
const serviceDirs = (process.env.ROUTE_CPU_DIRS ?? repoRoot).split(',');
// Each scenario list runs this many times; the side-by-side table keeps each row's lowest figure.
const repeat = Number(process.env.ROUTE_CPU_REPEAT ?? 1);
const TICK_US = 1_000_000 / 100; // USER_HZ

/** utime + stime of a /proc `stat` file (a process's, or one thread's under task/), in µs. */
const statCpuUs = (statPath: string): number => {
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
};
const cpuUs = (pid: number): number => statCpuUs(`/proc/${pid}/stat`);

function start(label: string, args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): Child {
  mkdirSync(logsDir, { recursive: true });
  return startChild(label, process.execPath, args, { cwd, env, logFile: join(logsDir, `${label}.log`) });
}

/** The PostgreSQL backends serving database `name` (their CPU is the database's share of a request). */
function backendsOf(name: string | null): number[] {
  if (!name) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${name} `)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** CPU µs of each thread of `pid`, by thread id (the PGlite database thread is the busiest one beside the main thread). */
function threadCpu(pid: number): Map<number, number> {
  const byThread = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      byThread.set(Number(tid), statCpuUs(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // gone
    }
  }
  return byThread;
}

const cpuOf = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + cpuUs(pid);
    } catch {
      return sum;
    }
  }, 0);

/** CPU µs of `pid` (minus its idle CPU), of the database backends and of this load generator, per request. */
async function cpuPerRequest(pid: number, url: string, requests: autocannon.Request[], idleUsPerMs: number, dbName: string | null = null) {
  await autocannon({ url, connections, amount: Math.min(4000, amount), requests }); // warm-up
  const backends = backendsOf(dbName);
  const cpu0 = cpuUs(pid);
  const threads0 = threadCpu(pid);
  const db0 = cpuOf(backends);
  const client0 = process.cpuUsage();
  const t0 = Date.now();
  const result = await autocannon({ url, connections, amount, requests });
  const elapsedMs = Date.now() - t0;
  const client = process.cpuUsage(client0);
  const used = cpuUs(pid) - cpu0 - idleUsPerMs * elapsedMs;
  const done = result.totalCompletedRequests ?? result.requests.total;
  let mainUs = 0;
  let busiestOtherUs = 0;
  for (const [tid, us] of threadCpu(pid)) {
    const delta = us - (threads0.get(tid) ?? 0);
    if (tid === pid) mainUs = delta;
    else busiestOtherUs = Math.max(busiestOtherUs, delta);
  }
  return {
    mainUs: mainUs / done,
    otherUs: busiestOtherUs / done,
    us: used / done,
    dbUs: (cpuOf(backends) - db0) / done,
    clientUs: (client.user + client.system) / done,
    reqPerSec: (done * 1000) / elapsedMs,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function idleRate(pid: number, ms = 2000): Promise<number> {
  const c0 = cpuUs(pid);
  await new Promise((r) => setTimeout(r, ms));
  return (cpuUs(pid) - c0) / ms;
}


/** Starts the service from `dir` (fresh database and data dir) and measures every scenario once; returns the printed figures per scenario. */
async function measureService(dir: string, ceilingUs: number): Promise<[string, string, number][]> {
  const out: [string, string, number][] = [];
  let database: BenchDatabase | null = null;
  let service: Child | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-route-cpu-'));
  try {
    if (engine === 'postgres') {
      const created = await createBenchDatabase(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
      if ('skipped' in created) throw new Error(created.skipped);
      database = created;
    }
    const port = await freePort();
    const adminToken = randomBytes(24).toString('hex');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      AGENT_RPM: '100000000',
      TRADE_WPM: '100000000',
      PUBLIC_RPM: '100000000',
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    if (database) env.DATABASE_URL = database.url;
    const profileDir = join(logsDir, 'profiles');
    const args = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), '--import', 'tsx', 'src/main.ts', role];
    service = start('route-cpu-service', args, env, dir);
    console.log(`# service from ${dir}`);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitReady(service, `${baseUrl}/readyz`, 120_000);
    const keys: string[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${baseUrl}/api/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userId: 'bench', name: `cpu-${i}`, scopes: ['read', 'trade:spot', 'trade:futures', 'trade:pm'] }),
      });
      keys.push(((await response.json()) as { key: string }).key);
    }
    await new Promise((r) => setTimeout(r, 8000)); // let start-up work settle
    const idle = await idleRate(service.pid);
    console.log(`service idle CPU: ${(idle / 10).toFixed(1)} % of a core`);
    const context: ScenarioContext = {
      baseUrl,
      keys,
      historyKeys: { short: keys[0]!, long: keys[1]! },
      unique: () => randomBytes(8).toString('hex'),
      seed: async () => ({ non2xx: 0, errors: 0 }),
      state: {},
      historyOrders: 0,
    };
    for (const name of names) {
      const scenario = scenarios.find((s) => s.name === name);
      if (!scenario) throw new Error(`no scenario ${name}`);
      if (scenario.prepare) await scenario.prepare(context);
      const requests: autocannon.Request[] = scenario.build ? scenario.build(context) : requestsFor(scenario, keys, context.unique);
      const first = requests[0]!;
      const sample = await fetch(`${baseUrl}${first.path}`, { method: first.method, headers: first.headers as Record<string, string>, ...(first.body !== undefined ? { body: String(first.body) } : {}) });
      const bytes = (await sample.arrayBuffer()).byteLength;
      const m = await cpuPerRequest(service.pid, baseUrl, requests, idle, database?.name ?? null);
      const note = m.non2xx + m.errors > 0 ? `  (${m.non2xx} non-2xx, ${m.errors} errors)` : '';
      const text = `${m.us.toFixed(1).padStart(7)} µs/req  ×${(m.us / ceilingUs).toFixed(2)}  main ${m.mainUs.toFixed(0)} µs  thread ${m.otherUs.toFixed(0)} µs  db ${m.dbUs.toFixed(0)} µs  client ${m.clientUs.toFixed(0)} µs  ${Math.round(m.reqPerSec)} req/s  p99 ${m.p99} ms`;
      out.push([name, text, m.us]);
      console.log(`${name.padEnd(18)} ${text}  ${(bytes / 1024).toFixed(1)} KB${note}`);
    }

  } finally {
    if (service) await stopChild(service, 10_000);
    if (database) await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`# route CPU: ${amount} requests per row, ${connections} connections, ${engine}, role ${role}; load ${load()}`);

// The ceiling.
const ceilingPort = await freePort();
const ceiling = start('route-cpu-ceiling', ['--import', 'tsx', 'bench/ceiling-server.ts'], { ...process.env, PORT: String(ceilingPort), HOST: '127.0.0.1' });
/** Per scenario, the lowest figure of each tree (by its index in serviceDirs). */
const table = new Map<string, { text: string; us: number }[]>();
try {
  await waitReady(ceiling, `http://127.0.0.1:${ceilingPort}/`);
  const c = await cpuPerRequest(ceiling.pid, `http://127.0.0.1:${ceilingPort}`, [{ method: 'GET', path: '/' }], 0);
  console.log(`${'ceiling'.padEnd(18)} ${c.us.toFixed(1).padStart(7)} µs/req  ×1.00  client ${c.clientUs.toFixed(0)} µs  ${Math.round(c.reqPerSec)} req/s  p99 ${c.p99} ms`);
  await stopChild(ceiling);

  for (let round = 0; round < repeat; round += 1) {
    // Each round starts every tree afresh, in alternating order: the tree measured second in a run tended to come out slower.
    const order = serviceDirs.map((_, i) => (round % 2 === 0 ? i : serviceDirs.length - 1 - i));
    for (const i of order) {
      for (const [name, text, us] of await measureService(serviceDirs[i]!, c.us)) {
        const row = table.get(name) ?? table.set(name, []).get(name)!;
        if (!row[i] || us < row[i].us) row[i] = { text, us };
      }
    }
  }
  if (serviceDirs.length > 1 || repeat > 1) {
    console.log(`\n# side by side, lowest of ${repeat} (${serviceDirs.join(' | ')})`);
    for (const [name, row] of table) console.log(`${name.padEnd(18)} ${serviceDirs.map((_, i) => row[i]?.text ?? '-').join('  |  ')}`);
  }
} finally {
  await stopChild(ceiling);
  console.log(`# load at the end ${load()}`);
}
