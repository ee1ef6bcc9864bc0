import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { listenForMcp, resultJson } from '../support/mcp-client.js';

/** The bridge as an MCP host launches it (`npx paper-arena mcp …` runs bin/paper-arena.mjs): a child speaking MCP on stdio. */
function bridge(args: string[]): { client: Client; transport: StdioClientTransport; stderr: () => string } {
  const { DATABASE_URL: _d, ADMIN_TOKEN: _a, PAPER_ARENA_KEY: _k, PAPER_ARENA_URL: _u, ...env } = process.env;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/paper-arena.mjs', 'mcp', ...args],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  return { client: new Client({ name: 'stdio-host', version: '0.0.0' }), transport, stderr: () => stderr };
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ config: { agentRpm: 100_000 } });
  t.market.set('1', 50_000, t.clock.now());
  base = (await listenForMcp(t.app)).origin;
});
afterAll(async () => t.close());

describe('paper-arena mcp (stdio bridge)', () => {
  it('relays a whole session between stdio and /mcp: initialize, list, calls and refusals', async () => {
    const { key } = await t.newKey(['read']);
    const { client, transport } = bridge(['--url', base, '--key', key]);
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'paper-arena' });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['spot_order', 'account_me', 'pm_events']));
      expect(resultJson(await call(client, 'spot_quote', { coinId: '1', side: 'buy', quantity: 0.01 }))).toMatchObject({ eligible: true });
      const refused = await call(client, 'spot_order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 1, idempotencyKey: 'k' });
      expect(resultJson(refused)).toMatchObject({ error: 'insufficient_scope', status: 403 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a host that pipes its requests and closes stdin still gets every answer', async () => {
    const { key } = await t.newKey(['read']);
    const { DATABASE_URL: _d, ADMIN_TOKEN: _a, PAPER_ARENA_KEY: _k, PAPER_ARENA_URL: _u, ...env } = process.env;
    const child = spawn(process.execPath, ['bin/paper-arena.mjs', 'mcp', '--url', base, '--key', key], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'account_me', arguments: {} } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }, // a notification piped last
    ];
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    expect(await exited).toBe(0);
    // closing stdin aborted the notifications still being posted: "This operation was aborted", twice each
    expect(stderr).toBe('');
    const answers = stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result?: { content?: { text: string }[] }; error?: unknown });
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    expect(answers.every((a) => a.error === undefined), stdout).toBe(true);
    expect(answers.find((a) => a.id === 2)!.result!.content![0]!.text).toContain('"keyId"');
  }, 60_000);

  it('answers with an error naming the server when it cannot be reached, instead of hanging', async () => {
    const { client, transport, stderr } = bridge(['--url', 'http://127.0.0.1:9/']);
    await expect(client.connect(transport)).rejects.toThrow(/Paper Arena at http:\/\/127\.0\.0\.1:9\/mcp/);
    await client.close();
    expect(stderr().match(/paper-arena mcp:/g)).toHaveLength(1); // each failure once (it was logged twice)
  }, 60_000);
});
