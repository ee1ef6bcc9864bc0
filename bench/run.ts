/**
 * `npm run bench` — load-tests Paper Arena the way a user runs it.
 *
 *   1. ceiling: a bare Fastify hello-world in its own process (bench/ceiling-server.ts)
 *   2. for each engine (PGlite, then PostgreSQL when reachable): start
 *      `node --import tsx src/main.ts serve` on a free port with a fresh DATA_DIR /
 *      database, wait for /readyz, create BENCH_KEYS keys through the admin API,
 *      run every scenario of bench/scenarios.ts (warm-up + measured run), sample RSS
 *   3. write bench/results/latest.json + latest.md and print the table
 *
 * Environment: see bench/README.md (BENCH_DURATION, BENCH_CONNECTIONS, ...).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { measure, sendAmount, type LoadSettings } from './lib/load.js';
import { pgbenchReference, REFERENCE_CLIENTS, type WriteReference } from './lib/references.js';
import { createBenchDatabase, type BenchDatabase } from './lib/postgres.js';
import {
  freePort,
  logTail,
  round,
  sampleMemory,
  startChild,
  stopAllChildren,
  stopChild,
  waitReady,
  type Child,
} from './lib/processes.js';
import { machineInfo, toMarkdown, type CeilingResult, type EngineResult, type Report, type ScenarioResult } from './lib/report.js';
import { requestsFor, scenarios as allScenarios, type Scenario, type ScenarioContext } from './scenarios.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const resultsDir = join(benchDir, 'results');
const logsDir = join(resultsDir, 'tmp'); // gitignored

// ---------------------------------------------------------------- settings
function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) {
    console.error(`${name} must be a number >= ${min} (got "${raw}")`);
    process.exit(2);
  }
  return value;
}
const envFlag = (name: string) => ['1', 'true', 'yes', 'on'].includes((process.env[name] ?? '').trim().toLowerCase());

/** `npm run bench -- --quick`: short rows (3 s + 1 s warm-up), the whole run in under 10 minutes. */
const quick = process.argv.includes('--quick');
const settings: LoadSettings = {
  duration: envInt('BENCH_DURATION', quick ? 3 : 10, 1),
  warmup: envInt('BENCH_WARMUP', quick ? 1 : 2, 0),
  connections: envInt('BENCH_CONNECTIONS', 50, 1),
  pipelining: envInt('BENCH_PIPELINING', 1, 1),
  timeout: envInt('BENCH_TIMEOUT', 10, 1),
};
const keyCount = envInt('BENCH_KEYS', 50, 1);
const historyOrders = envInt('BENCH_HISTORY_ORDERS', 10_000, 10);
const referenceSeconds = envInt('BENCH_REFERENCE_SECONDS', settings.duration, 1);
const pgbenchScale = envInt('BENCH_PGBENCH_SCALE', 16, 1);
const onlyCeiling = envFlag('BENCH_ONLY_CEILING');
const pgAdminUrl = process.env.BENCH_PG_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
const engines = (process.env.BENCH_ENGINES ?? 'pglite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter(Boolean);
for (const engine of engines) {
  if (engine !== 'pglite' && engine !== 'postgres') {
    console.error(`BENCH_ENGINES: unknown engine "${engine}" (pglite, postgres)`);
    process.exit(2);
  }
}
const scenarioFilter = (process.env.BENCH_SCENARIOS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const scenarios = scenarioFilter.length > 0 ? allScenarios.filter((s) => scenarioFilter.includes(s.name)) : allScenarios;
if (scenarioFilter.length > 0 && scenarios.length !== scenarioFilter.length) {
  const known = allScenarios.map((s) => s.name).join(', ');
  console.error(`BENCH_SCENARIOS: unknown name in "${scenarioFilter.join(',')}" (known: ${known})`);
  process.exit(2);
}

const role = process.env.BENCH_ROLE?.trim() || 'serve';
if (!['serve', 'api'].includes(role)) {
  console.error(`BENCH_ROLE must be serve or api (got "${role}")`);
  process.exit(2);
}
if (role === 'api' && engines.includes('pglite')) {
  console.error('BENCH_ROLE=api runs on PostgreSQL only (the service refuses api without DATABASE_URL): set BENCH_ENGINES=postgres');
  process.exit(2);
}
const SERVICE_ARGS = ['--import', 'tsx', 'src/main.ts', role];
/** Above this share of non-2xx answers and errors a row is marked failed (the scenario is broken, e.g. its orders are refused). */
const MAX_FAILED_SHARE = 0.01;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// ---------------------------------------------------------------- cleanup
const tempDirs = new Set<string>();
const databases = new Set<BenchDatabase>();

async function cleanup(): Promise<void> {
  await stopAllChildren();
  for (const db of databases) {
    try {
      await db.drop();
      log(`dropped database ${db.name}`);
    } catch (error) {
      log(`could not drop database ${db.name}: ${String(error)}`);
    }
  }
  databases.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130); // second Ctrl-C: children get SIGKILL from the exit hook
    interrupted = true;
    log(`${signal}: stopping children and cleaning up…`);
    cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- helpers
function startNode(label: string, args: string[], env: NodeJS.ProcessEnv): Child {
  mkdirSync(logsDir, { recursive: true });
  const logFile = join(logsDir, `${label}.log`);
  writeFileSync(logFile, `# ${new Date().toISOString()} ${process.execPath} ${args.join(' ')}\n`);
  return startChild(label, process.execPath, args, { cwd: repoRoot, env, logFile });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface CreatedKey {
  key: string;
  keyId: unknown;
}

/** POST /api/admin/keys × n. Tolerates shape drift (reports it) as long as a raw key comes back. */
async function createKeys(baseUrl: string, adminToken: string, n: number, notes: string[]): Promise<CreatedKey[]> {
  const keys: CreatedKey[] = [];
  let shapeNoted = false;
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${baseUrl}/api/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'bench', name: `bench-${i}`, scopes: ['read', 'trade:spot', 'trade:futures', 'trade:pm'] }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 201 && response.status !== 200) {
      throw new Error(`POST /api/admin/keys (#${i}) answered ${response.status}: ${text.slice(0, 500)}`);
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`POST /api/admin/keys (#${i}) answered ${response.status} with non-JSON: ${text.slice(0, 300)}`);
    }
    const raw = [body.key, body.apiKey, body.token, (body.data as Record<string, unknown> | undefined)?.key].find(
      (v): v is string => typeof v === 'string' && v.length > 0,
    );
    if (!raw) throw new Error(`POST /api/admin/keys (#${i}): no raw key in the response: ${text.slice(0, 500)}`);
    if (!shapeNoted) {
      const problems: string[] = [];
      if (response.status !== 201) problems.push(`status ${response.status} (expected 201)`);
      if (typeof body.key !== 'string') problems.push('raw key not in "key"');
      if (!raw.startsWith('sk_live_')) problems.push('key does not start with sk_live_');
      for (const field of ['keyId', 'userId', 'scopes', 'handle']) if (!(field in body)) problems.push(`no "${field}"`);
      if (problems.length > 0) {
        const note = `admin key response differs from the documented shape: ${problems.join('; ')}; first body: ${text.slice(0, 300)}`;
        notes.push(note);
        log(note);
      }
      shapeNoted = true;
    }
    keys.push({ key: raw, keyId: body.keyId });
  }
  return keys;
}

const runTag = `bench-${Date.now().toString(36)}`;
let uniqueCounter = 0;

/** One request before measuring: a scenario that does not answer as expected is reported, not measured. */
async function preflight(baseUrl: string, request: autocannon.Request, expectStatus: number): Promise<string | null> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body.toString() } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status === expectStatus) return null;
  return `pre-flight ${request.method} ${request.path} answered ${response.status} (expected ${expectStatus}): ${text.slice(0, 300)}`;
}

// ---------------------------------------------------------------- ceiling
async function runCeiling(): Promise<CeilingResult> {
  const port = await freePort();
  const child = startNode('ceiling', ['--import', 'tsx', relative(repoRoot, join(benchDir, 'ceiling-server.ts'))], {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(child, `${url}/`, 60_000);
    log(`ceiling: bare Fastify on :${port}, ${settings.warmup}s warm-up + ${settings.duration}s…`);
    const m = await measure(url, [{ method: 'GET', path: '/' }], settings);
    const memory = sampleMemory(child.pid);
    log(`ceiling: ${m.reqPerSec} req/s, p99 ${m.latencyP99Ms} ms`);
    return { status: 'ok', ...m, rssMb: memory?.rssMb ?? null };
  } catch (error) {
    log(`ceiling failed: ${errorText(error)}`);
    return { status: 'failed', note: errorText(error) };
  } finally {
    await stopChild(child);
  }
}

// ---------------------------------------------------------------- write references
async function pgliteReference(): Promise<WriteReference> {
  const base = { kind: 'pglite-loop' as const, clients: REFERENCE_CLIENTS, durationS: referenceSeconds };
  const child = startNode('pglite-reference', ['--import', 'tsx', relative(repoRoot, join(benchDir, 'pglite-reference.ts'))], {
    ...process.env,
    BENCH_REFERENCE_SECONDS: String(referenceSeconds),
    BENCH_REFERENCE_CLIENTS: String(REFERENCE_CLIENTS),
  });
  await child.exited;
  const line = logTail(child, 2000).trim().split('\n').reverse().find((l) => l.startsWith('{"tps"'));
  if (child.exit?.code !== 0 || !line) return { ...base, status: 'failed', note: `exit ${child.exit?.code}: ${logTail(child, 300)}` };
  const parsed = JSON.parse(line) as { tps: number };
  return { ...base, status: 'ok', tps: parsed.tps, note: 'TPC-B-like transaction in a raw PGlite loop (file-backed, 16 concurrent callers)' };
}

async function writeReference(engine: 'pglite' | 'postgres'): Promise<WriteReference> {
  log(`${engine}: write reference (${referenceSeconds}s)…`);
  const ref = engine === 'postgres' ? await pgbenchReference(pgAdminUrl, referenceSeconds, pgbenchScale) : await pgliteReference();
  log(`${engine}: write reference ${ref.kind} ${ref.status}${ref.tps !== undefined ? `: ${ref.tps} tps` : ''}${ref.note ? ` (${ref.note})` : ''}`);
  return ref;
}

// ---------------------------------------------------------------- engines
async function runEngine(engine: 'pglite' | 'postgres', ceilingReqPerSec: number | null): Promise<EngineResult> {
  const result: EngineResult = { engine, status: 'ok', scenarios: [] };
  const notes: string[] = [];
  // Measured before the service starts, so nothing else competes with it.
  result.writeReference = await writeReference(engine);
  const writeTps = result.writeReference.status === 'ok' ? (result.writeReference.tps ?? null) : null;

  let database: BenchDatabase | null = null;
  if (engine === 'postgres') {
    const created = await createBenchDatabase(pgAdminUrl);
    if ('skipped' in created) {
      const note = `PostgreSQL not usable at ${pgAdminUrl.replace(/\/\/[^@/]*@/, '//…@')} (${created.skipped}); skipped`;
      log(note);
      return { engine, status: 'skipped', note, scenarios: [] };
    }
    database = created;
    databases.add(database);
    log(`postgres: created database ${database.name}`);
  }

  const dataDir = mkdtempSync(join(tmpdir(), `paper-arena-bench-${engine}-`));
  tempDirs.add(dataDir);
  const adminToken = randomBytes(24).toString('hex');
  const port = await freePort();
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
  delete env.REDIS_URL; // the bench measures the single-process, in-process-state mode
  if (database) env.DATABASE_URL = database.url;

  const baseUrl = `http://127.0.0.1:${port}`;
  const startedAt = Date.now();
  const child = startNode(`service-${engine}`, SERVICE_ARGS, env);
  try {
    // An `api` process alone never turns ready (no worker ingests the prediction markets): it is measured once it answers.
    await waitReady(child, `${baseUrl}/${role === 'api' ? 'healthz' : 'readyz'}`, 60_000);
    result.readyMs = Date.now() - startedAt;
    result.rssReadyMb = sampleMemory(child.pid)?.rssMb ?? null;
    log(`${engine}: service ready on :${port} after ${result.readyMs} ms (pid ${child.pid}, RSS ${result.rssReadyMb} MB)`);

    const needKeys = scenarios.some((s) => s.needsKey);
    const created = needKeys ? await createKeys(baseUrl, adminToken, keyCount + 2, notes) : [];
    const keys = created.slice(0, keyCount);
    result.keysCreated = created.length;
    if (needKeys) log(`${engine}: created ${created.length} keys (${keyCount} rotated + 2 history keys)`);
    const context: ScenarioContext = {
      baseUrl,
      keys: keys.map((k) => k.key),
      historyKeys: { short: created[keyCount]?.key ?? '', long: created[keyCount + 1]?.key ?? '' },
      unique: () => `${runTag}-${(uniqueCounter += 1)}`,
      seed: (requests, amount, connections) => sendAmount(baseUrl, requests, amount, connections, settings.timeout),
      state: {},
      historyOrders,
    };

    for (const scenario of scenarios) {
      const row: ScenarioResult = { name: scenario.name, method: scenario.method, path: scenario.path, status: 'ok' };
      result.scenarios.push(row);
      try {
        if (child.exit) throw new Error(`the service exited (code ${child.exit.code}, signal ${child.exit.signal})`);
        if (scenario.prepare) {
          const preparedAt = Date.now();
          await scenario.prepare(context);
          log(`${engine} / ${scenario.name}: prepared in ${Date.now() - preparedAt} ms`);
        }
        const requests = scenario.build ? scenario.build(context) : requestsFor(scenario, keys.map((k) => k.key), () => `${runTag}-${(uniqueCounter += 1)}`);
        if (!scenario.build) {
          const problem = await preflight(baseUrl, requests[0]!, scenario.expectStatus ?? 200);
          if (problem) throw new Error(problem);
        }
        const rowSettings = { ...settings, connections: scenario.connections ?? settings.connections };
        row.connections = rowSettings.connections;
        log(`${engine} / ${scenario.name}: ${settings.warmup}s warm-up + ${settings.duration}s, ${rowSettings.connections} connections…`);
        const m = await measure(baseUrl, scenario.build ? () => scenario.build!(context) : requests, rowSettings);
        Object.assign(row, m);
        row.ratioToCeiling = ceilingReqPerSec ? round(m.reqPerSec / ceilingReqPerSec, 3) : null;
        row.reference = scenario.reference === 'write' ? (result.writeReference?.kind ?? 'write') : 'ceiling';
        const referenceRate = scenario.reference === 'write' ? writeTps : ceilingReqPerSec;
        row.ratio = referenceRate ? round(m.reqPerSec / referenceRate, 3) : null;
        row.rssMb = sampleMemory(child.pid)?.rssMb ?? null;
        if (m.non2xx > 0 || m.errors > 0) {
          row.note = `${m.errors} errors (${m.timeouts} timeouts), ${m.non2xx} non-2xx; status codes ${JSON.stringify(m.statusCodes)}`;
        }
        // A row whose requests were mostly refused measures the refusal, not the route: no ratio for it.
        if (m.non2xx + m.errors > MAX_FAILED_SHARE * Math.max(1, m.totalRequests)) {
          row.status = 'failed';
          row.note = `more than ${MAX_FAILED_SHARE * 100} % of requests failed — ${row.note}`;
          result.status = 'failed';
        }
        log(`${engine} / ${scenario.name}: ${m.reqPerSec} req/s (${row.ratio === null ? '–' : `${Math.round((row.ratio ?? 0) * 1000) / 10}%`} of ${row.reference}), p50 ${m.latencyP50Ms} ms, p99 ${m.latencyP99Ms} ms, RSS ${row.rssMb} MB`);
      } catch (error) {
        row.status = 'failed';
        row.note = errorText(error);
        row.rssMb = sampleMemory(child.pid)?.rssMb ?? null;
        result.status = 'failed';
        log(`${engine} / ${scenario.name} failed: ${row.note}`);
      }
    }

    const memory = sampleMemory(child.pid);
    result.rssMb = memory?.rssMb ?? null;
    result.peakRssMb = memory?.peakRssMb ?? null;
    if (child.exit) {
      result.status = 'failed';
      notes.push(`the service exited during the run (code ${child.exit.code}, signal ${child.exit.signal}); log tail: ${logTail(child, 1500)}`);
    }
  } catch (error) {
    result.status = 'failed';
    notes.push(errorText(error));
    log(`${engine} failed: ${errorText(error)}`);
  } finally {
    await stopChild(child);
    if (child.exit && child.exit.code !== 0 && child.exit.signal !== 'SIGTERM' && result.status === 'ok') {
      notes.push(`the service did not exit cleanly on SIGTERM (code ${child.exit.code}, signal ${child.exit.signal})`);
    }
    if (database) {
      try {
        await database.drop();
        databases.delete(database);
        log(`postgres: dropped database ${database.name}`);
      } catch (error) {
        notes.push(`could not drop database ${database.name}: ${errorText(error)}`);
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
    tempDirs.delete(dataDir);
  }
  if (notes.length > 0) result.note = notes.join(' | ');
  return result;
}

// ---------------------------------------------------------------- main
async function main(): Promise<number> {
  mkdirSync(resultsDir, { recursive: true });
  const machine = machineInfo(repoRoot);
  log(
    `node ${machine.node}, ${machine.cpus} CPUs; ${settings.duration}s per run (+${settings.warmup}s warm-up), ${settings.connections} connections` +
      (onlyCeiling ? '; ceiling only' : `; engines ${engines.join(', ')}; scenarios ${scenarios.map((s) => s.name).join(', ')}`),
  );

  const ceiling = await runCeiling();
  const engineResults: EngineResult[] = [];
  if (!onlyCeiling) {
    for (const engine of engines as Array<'pglite' | 'postgres'>) {
      if (interrupted) break;
      engineResults.push(await runEngine(engine, ceiling.status === 'ok' ? (ceiling.reqPerSec ?? null) : null));
    }
  }

  const report: Report = {
    schemaVersion: 1,
    machine,
    settings: { ...settings, keys: keyCount, quick, historyOrders, command: `node ${SERVICE_ARGS.join(' ')}` },
    ceiling,
    engines: engineResults,
  };
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  const markdown = toMarkdown(report);
  writeFileSync(join(resultsDir, 'latest.md'), markdown);
  process.stdout.write(`\n${markdown}\n`);
  log(`wrote ${relative(repoRoot, join(resultsDir, 'latest.json'))} and latest.md (service logs in ${relative(repoRoot, logsDir)}/)`);

  const failed = ceiling.status !== 'ok' || engineResults.some((e) => e.status === 'failed');
  return failed ? 1 : 0;
}

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup();
    process.exit(1);
  });
