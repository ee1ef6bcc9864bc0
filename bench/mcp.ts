/**
 * `npx tsx bench/mcp.ts` — MCP `tools/call` throughput against the REST route each tool
 * adapts, in the same run on the same server, plus the time to a new MCP session's first
 * tool result (SDK client: initialize → initialized → tools/call).
 *
 *   - starts `node --import tsx src/main.ts serve` (PGlite in a temp DATA_DIR, limits off,
 *     LOG_LEVEL=warn), creates BENCH_KEYS keys through the admin API;
 *   - rows: market_context (GET /api/agent/market/1 vs tools/call) and spot_quote
 *     (POST /api/agent/spot/quote vs tools/call), each a warm-up + measured autocannon run
 *     with BENCH_CONNECTIONS connections (bench/lib/load.ts), keys rotated per connection;
 *   - BENCH_MCP_SEQUENTIAL=<n>: instead of autocannon, n sequential calls per row, the rows
 *     interleaved call by call (per-call latency; no load);
 *   - writes bench/results/mcp-latest.json and .md (sequential: mcp-sequential-latest.*).
 *
 * Environment: BENCH_DURATION (10), BENCH_WARMUP (2), BENCH_CONNECTIONS (50), BENCH_KEYS (10),
 * BENCH_MCP_SESSIONS (20 new sessions timed), BENCH_MCP_SEQUENTIAL (unset).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, type LoadSettings } from './lib/load.js';
import { freePort, round, startChild, stopAllChildren, waitReady } from './lib/processes.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const resultsDir = join(benchDir, 'results');
const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v >= 0 && process.env[name]?.trim() ? v : fallback;
};
const settings: LoadSettings = {
  duration: envInt('BENCH_DURATION', 10),
  warmup: envInt('BENCH_WARMUP', 2),
  connections: envInt('BENCH_CONNECTIONS', 50),
  pipelining: 1,
  timeout: 10,
};
const KEYS = Math.max(1, envInt('BENCH_KEYS', 10));
const SESSIONS = envInt('BENCH_MCP_SESSIONS', 20);
const SEQUENTIAL = envInt('BENCH_MCP_SEQUENTIAL', 0);
const log = (line: string) => process.stderr.write(`[bench:mcp] ${line}\n`);

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
const toolCall = (name: string, args: object) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const QUOTE = { coinId: '1', side: 'buy', quantity: 0.001 };

interface Row {
  name: string;
  tool: string;
  via: 'REST' | 'MCP';
  request: (key: string) => autocannon.Request;
}
const ROWS: Row[] = [
  { name: 'market_context REST', tool: 'market_context', via: 'REST', request: (key) => ({ method: 'GET', path: '/api/agent/market/1', headers: { authorization: `Bearer ${key}` } }) },
  { name: 'market_context MCP', tool: 'market_context', via: 'MCP', request: (key) => ({ method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, body: toolCall('market_context', { coinId: '1' }) }) },
  { name: 'spot_quote REST', tool: 'spot_quote', via: 'REST', request: (key) => ({ method: 'POST', path: '/api/agent/spot/quote', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(QUOTE) }) },
  { name: 'spot_quote MCP', tool: 'spot_quote', via: 'MCP', request: (key) => ({ method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, body: toolCall('spot_quote', QUOTE) }) },
];

async function send(baseUrl: string, request: autocannon.Request): Promise<string> {
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body?.toString() });
  const text = await response.text();
  // A tool error is a 200 JSON-RPC answer: look inside, so a refused call never counts as a result.
  if (response.status !== 200 || text.includes('"isError":true')) throw new Error(`${request.method} ${request.path} → ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
function latencyStats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: samples.length, meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length, 3), p50Ms: round(percentile(sorted, 50), 3), p99Ms: round(percentile(sorted, 99), 3) };
}

/** n calls per row, the rows interleaved call by call, so a busy machine slows every row alike. */
async function sequential(baseUrl: string, keys: string[]) {
  const samples = ROWS.map(() => [] as number[]);
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const [r, row] of ROWS.entries()) {
      const started = performance.now();
      await send(baseUrl, row.request(keys[i % keys.length]!));
      samples[r]!.push(performance.now() - started);
    }
  }
  return samples.map(latencyStats);
}

/** A brand-new SDK session per sample: connect (initialize + initialized) and the first tools/call. */
async function firstResult(mcpUrl: URL, key: string) {
  const samples: number[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const started = performance.now();
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const result = await client.callTool({ name: 'market_context', arguments: { coinId: '1' } });
    samples.push(performance.now() - started);
    if (result.isError) throw new Error(`first tool call failed: ${JSON.stringify(result.content)}`);
    await client.close();
  }
  return latencyStats(samples);
}

async function createKeys(baseUrl: string, adminToken: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const response = await fetch(`${baseUrl}/api/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'bench', name: `mcp-${i}`, scopes: ['read'] }),
    });
    if (response.status !== 201) throw new Error(`POST /api/admin/keys answered ${response.status}: ${await response.text()}`);
    keys.push(((await response.json()) as { key: string }).key);
  }
  return keys;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-bench-mcp-'));
  const adminToken = randomBytes(24).toString('hex');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn', AGENT_RPM: '100000000', TRADE_WPM: '100000000', PUBLIC_RPM: '100000000' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
  const child = startChild('service-mcp', process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], { cwd: repoRoot, env, logFile: join(resultsDir, 'tmp', 'service-mcp.log') });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(child, `${baseUrl}/readyz`, 60_000);
    const keys = await createKeys(baseUrl, adminToken);
    for (const row of ROWS) await send(baseUrl, row.request(keys[0]!)); // pre-flight: every row answers a result
    const mode = SEQUENTIAL > 0 ? `sequential, ${SEQUENTIAL} calls per row` : `autocannon, ${settings.connections} connections, ${settings.warmup}s warm-up + ${settings.duration}s`;
    log(`server on :${port}; ${mode}`);
    const rows: Record<string, unknown>[] = [];
    const interleaved = SEQUENTIAL > 0 ? await sequential(baseUrl, keys) : null;
    for (const [r, row] of ROWS.entries()) {
      const figures = interleaved ? interleaved[r]! : await measure(baseUrl, keys.map(row.request), settings);
      log(`${row.name}: ${JSON.stringify(figures)}`);
      rows.push({ name: row.name, tool: row.tool, via: row.via, ...figures });
    }
    const session = SESSIONS > 0 ? await firstResult(new URL('/mcp', baseUrl), keys[0]!) : null;
    if (session) log(`new session → first tool result: ${JSON.stringify(session)}`);
    const ratios = ['market_context', 'spot_quote'].map((tool) => {
      const [rest, mcp] = (['REST', 'MCP'] as const).map((via) => rows.find((r) => r.tool === tool && r.via === via)!);
      const value = SEQUENTIAL > 0 ? round((rest!.p50Ms as number) / (mcp!.p50Ms as number), 3) : round((mcp!.reqPerSec as number) / (rest!.reqPerSec as number), 3);
      return { tool, mcpVsRest: value };
    });
    const report = { generatedAt: new Date().toISOString(), mode, cpus: cpus().length, loadavg: loadavg().map((l) => round(l, 2)), rows, ratios, firstToolResult: session };
    const base = SEQUENTIAL > 0 ? 'mcp-sequential-latest' : 'mcp-latest';
    writeFileSync(join(resultsDir, `${base}.json`), `${JSON.stringify(report, null, 2)}\n`);
    const md = [
      `# MCP vs REST (${report.generatedAt})`,
      '',
      `${mode}; ${report.cpus} CPUs, load ${report.loadavg.join(' ')}. MCP/REST = ${SEQUENTIAL > 0 ? 'REST p50 latency ÷ MCP p50 latency (rows interleaved call by call)' : 'MCP req/s ÷ REST req/s'}.`,
      '',
      SEQUENTIAL > 0 ? '| row | mean ms | p50 ms | p99 ms |\n|---|---|---|---|' : '| row | req/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|',
      ...rows.map((r) =>
        SEQUENTIAL > 0 ? `| ${r.name} | ${r.meanMs} | ${r.p50Ms} | ${r.p99Ms} |` : `| ${r.name} | ${r.reqPerSec} | ${r.latencyP50Ms} | ${r.latencyP99Ms} | ${r.non2xx} |`,
      ),
      '',
      ...ratios.map((r) => `- ${r.tool}: MCP/REST = ${r.mcpVsRest}`),
      session ? `- new MCP session → first tool result (${session.n} sessions): mean ${session.meanMs} ms, p50 ${session.p50Ms} ms, p99 ${session.p99Ms} ms` : '',
      '',
    ].join('\n');
    writeFileSync(join(resultsDir, `${base}.md`), md);
    process.stdout.write(md);
  } finally {
    await stopAllChildren();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  void stopAllChildren().finally(() => process.exit(1));
});
