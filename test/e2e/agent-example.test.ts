import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, exited, freePort, startServer } from './support/crash-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-example-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function admin(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

/** Runs the example as a user would, to completion; resolves with its exit code, output and wall time. */
function runExample(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/agent-loop.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output, ms: Date.now() - started })));
}

describe('the example agent loop (examples/agent-loop.ts) against a real server', () => {
  it('resolves, quotes, orders, reads its portfolio and the decisions dataset', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = await startServer(dataDir, port);
    try {
      await admin(base, '/api/admin/users', { userId: 'example-owner' });
      const created = await admin(base, '/api/admin/keys', { userId: 'example-owner', name: 'example', scopes: ['read', 'trade:spot'] });
      const run = await runExample({ PAPER_ARENA_URL: base, PAPER_ARENA_KEY: String(created.key) }, ['--coin', 'bitcoin', '--rounds', '2']);
      process.stdout.write(`example agent loop: ${run.ms} ms (2 rounds, process start included)\n`);
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain('resolve: bitcoin → BTC (coinId 1)');
      expect(run.output).toMatch(/round 1 order: market buy of 0\.001 BTC filled \(orderId \d+/);
      expect(run.output).toMatch(/round 2 order: market sell of 0\.001 BTC filled/);
      expect(run.output).toMatch(/portfolio: equity [\d.]+ mUSD/);
      expect(run.output).toMatch(/decisions: \d+ resolved public decisions/);

      // The orders went through the ledger with the client's generated idempotency keys.
      const ledger = await fetch(`${base}/api/agent/ledger?eventType=write`, { headers: { authorization: `Bearer ${String(created.key)}` } });
      const rows = ((await ledger.json()) as { data: { idempotencyKey: string | null; statusCode: number }[] }).data;
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

      // ordinary mistakes end in one line and a non-zero exit (a NaN --rounds printed "done", exit 0; the rest a stack)
      const mistakes: [NodeJS.ProcessEnv, string[], number, RegExp][] = [
        [{ PAPER_ARENA_KEY: String(created.key) }, ['--rounds', 'abc'], 2, /^--rounds must be a whole number of rounds, 1 or more \(got abc\)$/m],
        [{ PAPER_ARENA_KEY: String(created.key) }, ['--coin', 'no-such-coin-at-all'], 2, /^no coin matches no-such-coin-at-all/m],
        [{ PAPER_ARENA_KEY: 'sk_live_wrongwrongwrongwrongwrongwrongwrongwrong123' }, [], 1, /^401 unauthorized: /m],
        [{ PAPER_ARENA_KEY: String(created.key), PAPER_ARENA_URL: `http://127.0.0.1:${await freePort()}` }, [], 1, /^cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/m],
      ];
      for (const [env, args, code, message] of mistakes) {
        const wrong = await runExample({ PAPER_ARENA_URL: base, ...env }, args);
        expect(wrong.code, wrong.output).toBe(code);
        expect(wrong.output).toMatch(message);
        expect(wrong.output).not.toMatch(/^\s+at /m);
      }
    } finally {
      server.kill('SIGTERM');
      await exited(server);
    }
  }, 600_000);
});
