import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { FAILED_KEY_LOOKUPS_PER_MINUTE } from '../../src/ratelimit/key-lookups.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../support/app.js';

/** Limits on what a client without a valid key can make the server do (security audit). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { publicRpm: 3 } });
});
afterAll(async () => t.close());

const randomKey = (i: number) => `sk_live_${String(i).padStart(43, 'x')}`;
const me = (key: string, ip: string) => t.app.inject({ url: '/api/agent/me', headers: { authorization: `Bearer ${key}` }, remoteAddress: ip });
const mcp = (ip: string, body: object | string, key?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    payload: body,
  });

describe('unknown keys', () => {
  it(`cost a database look-up each only ${FAILED_KEY_LOOKUPS_PER_MINUTE} times a minute per address; then 429 until the minute ends`, async () => {
    const { key } = await t.newKey(['read']);
    expect((await me(key, '198.51.100.7')).statusCode).toBe(200); // cached from now on
    for (let i = 0; i < FAILED_KEY_LOOKUPS_PER_MINUTE; i += 1) expect((await me(randomKey(i), '198.51.100.7')).statusCode).toBe(401);
    const refused = await me(randomKey(999), '198.51.100.7');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await me(key, '198.51.100.7')).statusCode).toBe(200); // a cached key is not affected
    expect((await me(randomKey(999), '198.51.100.8')).statusCode).toBe(401); // another address is
    const overMcp = await mcp('198.51.100.7', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, randomKey(1000));
    expect(overMcp.statusCode).toBe(429);
    expect(overMcp.json().error.data).toMatchObject({ error: 'rate_limited' });
  });
});

describe('wrong admin tokens', () => {
  it(`count with unknown keys: ${FAILED_KEY_LOOKUPS_PER_MINUTE} a minute per address, then 429 (the right token included) until the minute ends`, async () => {
    const admin = (token: string, ip: string) => t.app.inject({ url: '/api/admin/users', headers: { authorization: `Bearer ${token}` }, remoteAddress: ip });
    expect((await admin(ADMIN_TOKEN, '198.51.100.20')).statusCode).toBe(200);
    for (let i = 0; i < FAILED_KEY_LOOKUPS_PER_MINUTE; i += 1) expect((await admin(`guess-${i}-guess-guess`, '198.51.100.20')).statusCode).toBe(401);
    const refused = await admin('guess-last-guess-guess', '198.51.100.20');
    expect([refused.statusCode, refused.json().error]).toEqual([429, 'rate_limited']);
    expect((await admin(ADMIN_TOKEN, '198.51.100.20')).statusCode).toBe(429);
    expect((await admin(ADMIN_TOKEN, '198.51.100.21')).statusCode).toBe(200); // another address is not
  });
});

describe('MCP messages that call no route', () => {
  it('count against the per-IP public budget, with a key or without (a keyed tools/list of 110 KB cost nothing)', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    for (let i = 0; i < 3; i += 1) expect((await mcp('203.0.113.9', list)).statusCode).toBe(200);
    const refused = await mcp('203.0.113.9', list);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.json().error.data).toMatchObject({ error: 'rate_limited' });
    const { key } = await t.newKey(['read']);
    expect((await mcp('203.0.113.9', list, key)).statusCode).toBe(429);
    for (let i = 0; i < 3; i += 1) expect((await mcp('203.0.113.10', list, key)).statusCode).toBe(200);
    expect((await mcp('203.0.113.10', list, key)).statusCode).toBe(429);
  });

  it('come one per request: a JSON-RPC batch is refused (it cost one unit and answered 20 MB)', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const res = await mcp('203.0.113.11', batch);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ id: null, error: { code: -32600, data: { error: 'invalid_request' } } });
    expect(res.body.length).toBeLessThan(1_000);
  });
});

describe('/openapi.json (535 KB)', () => {
  it('counts against the per-IP public budget like any keyless read, served from one serialization', async () => {
    const get = () => t.app.inject({ url: '/openapi.json', remoteAddress: '203.0.113.12' });
    const first = await get();
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect((await get()).body).toBe(first.body);
    await get();
    expect((await get()).statusCode).toBe(429);
  });
});

describe('keyed answers', () => {
  it('are never stored by a shared cache (no-store), except routes that set their own (private) policy', async () => {
    const { key } = await t.newKey(['read']);
    const headers = { 'x-api-key': key };
    expect((await t.app.inject({ url: '/api/agent/portfolio', headers })).headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ url: '/api/agent/ledger', headers })).headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ url: '/api/agent/me', headers: { 'x-api-key': 'sk_live_bad' } })).headers['cache-control']).toBe('no-store');
    // candles and news keep their own `private, max-age` (test/http/market.test.ts)
    const admin = await t.app.inject({ url: '/api/admin/keys', headers: { authorization: `Bearer ${t.ctx.adminToken}` } });
    expect(admin.statusCode).toBe(200);
    expect(admin.headers['cache-control']).toBe('no-store');
  });
});

describe('API keys pasted into caller text', () => {
  it('are redacted in the ledger trace fields and never echoed as a request id', async () => {
    const { key } = await t.newKey(['read']);
    const res = await t.app.inject({
      url: '/api/agent/me',
      headers: { authorization: `Bearer ${key}`, 'x-service-run-id': key, 'x-service-strategy-label': `token=${key}`, 'x-request-id': key },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).not.toContain('sk_live_');
    await t.ctx.ledger.flush();
    const rows = (await t.app.inject({ url: '/api/agent/ledger?limit=5', headers: { authorization: `Bearer ${key}` } })).json().data as Record<string, unknown>[];
    const traced = rows.find((r) => r.runId !== null)!;
    expect(traced).toMatchObject({ runId: 'sk_live_[redacted]', strategyLabel: 'token=sk_live_[redacted]' });
    expect(JSON.stringify(rows)).not.toContain(key);
  });
});

describe('MCP messages nested without end', () => {
  it('are refused with a JSON-RPC invalid request (400), not the parser stack overflowing into -32603', async () => {
    const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`; // as text: JSON.stringify itself would overflow
    const res = await mcp('192.0.2.44', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"arena_leaderboard","arguments":{"x":${deep}}}}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: -32600, data: { error: 'invalid_request' } });
    let fine: unknown = 1;
    for (let i = 0; i < 20; i += 1) fine = [fine];
    const ok = await mcp('192.0.2.45', { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'arena_leaderboard', arguments: { x: fine } } });
    expect(ok.statusCode).toBe(200); // a tool error about the unknown argument, if any — not a refusal of the message
  });
});

describe('open JSON values nested without end in a REST body', () => {
  it('are refused with 400 naming the field (6,000 levels overflowed the idempotency hash into a 500)', async () => {
    const { key } = await t.newKey(['read', 'trade:pm']);
    const open = (value: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/agent/pm/open',
        remoteAddress: '192.0.2.60',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: `{"source":"polymarket","slug":"x","outcomeExternalMarketId":"y","stakeMusd":10,"idempotencyKey":"deep","provenance":{"executionPolicyVersion":${value}}}`,
      });
    for (const levels of [6_000, 40]) {
      const res = await open(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);
      expect(res.statusCode, String(levels)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field: 'body.provenance.executionPolicyVersion' });
      expect(res.json().message).toMatch(/must not nest more than 32 levels deep/);
    }
    const arrays = await open(`${'['.repeat(30_000)}${']'.repeat(30_000)}`);
    expect(arrays.statusCode).toBe(400);
    // 20 levels is an ordinary value: the request goes on to the market look-up
    expect((await open(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`)).json().error).not.toBe('invalid_request');
  });
});

describe('a request body that never finishes', () => {
  it('is answered 408 and its connection closed once the deadline passes (one held its connection for good)', async () => {
    const slow = await createTestApp({ bodyTimeoutMs: 300 });
    await slow.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { key } = await slow.newKey(['read']);
      const port = (slow.app.server.address() as { port: number }).port;
      const framings: [string, string][] = [
        ['Content-Length: 100', '{"coinId"'],
        ['Transfer-Encoding: chunked', '9\r\n{"coinId"\r\n'], // one chunk, never the last
      ];
      for (const [framing, start] of framings) {
        const socket = net.connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        const started = Date.now();
        socket.write(`POST /api/agent/spot/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${start}`);
        await closed;
        expect(received, framing).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(received).toContain('"error":"request_timeout"');
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    } finally {
      await slow.close();
    }
  });
});

describe('open connections', () => {
  it('past MAX_CONNECTIONS a new connection is dropped at once; one closing makes room again (idle sockets were kept without limit)', async () => {
    const capped = await createTestApp({ config: { maxConnections: 2 } });
    await capped.app.listen({ port: 0, host: '127.0.0.1' });
    const sockets: net.Socket[] = [];
    try {
      const port = (capped.app.server.address() as { port: number }).port;
      /** Sends one keep-alive request; resolves with what came back before the socket closed or the answer arrived. */
      const ask = (socket: net.Socket) =>
        new Promise<string>((resolve) => {
          let received = '';
          const done = () => resolve(received);
          socket.on('data', (chunk) => {
            received += chunk.toString();
            if (received.includes('\r\n\r\n')) done();
          });
          socket.on('close', done);
          socket.on('error', done);
          socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        });
      const connect = async () => {
        const socket = net.connect(port, '127.0.0.1');
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
        return socket;
      };
      const [first, second] = [await connect(), await connect()];
      expect(await ask(first)).toMatch(/^HTTP\/1\.1 200/);
      expect(await ask(second)).toMatch(/^HTTP\/1\.1 200/);
      expect(await ask(await connect())).toBe(''); // the third: dropped without an answer
      first.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await ask(await connect())).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.close();
    }
  });
});

describe('a body labelled with a Content-Encoding', () => {
  it('is refused 415 (it was read as plain JSON, or as "not JSON" when really compressed); identity is plain', async () => {
    const { key } = await t.newKey(['read']);
    const quote = (encoding: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/agent/spot/quote',
        remoteAddress: '192.0.2.70',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': encoding },
        payload: '{"coinId":"1","side":"buy","quantity":0.01}',
      });
    for (const encoding of ['gzip', 'gzip, gzip', 'bogus']) {
      const res = await quote(encoding);
      expect([res.statusCode, res.json().error], encoding).toEqual([415, 'unsupported_media_type']);
    }
    expect((await quote('identity')).statusCode).toBe(200);
    const overMcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      remoteAddress: '192.0.2.71',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', accept: 'application/json, text/event-stream' },
      payload: '{"jsonrpc":"2.0","id":3,"method":"tools/list"}',
    });
    expect([overMcp.statusCode, overMcp.json().error.data.error]).toEqual([415, 'unsupported_media_type']);
  });
});

describe('MCP on a loopback-only server', () => {
  it('refuses messages addressed to another host name (DNS rebinding), takes 127.0.0.1 and localhost', async () => {
    expect(t.ctx.config.host).toBe('127.0.0.1');
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const { key } = await t.newKey(['read']);
    const send = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`, ...headers },
        payload: list,
      });
    const rebound = await send({ host: 'evil.example:3000', origin: 'http://evil.example:3000' });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json().error.data).toMatchObject({ error: 'forbidden_host' });
    expect(rebound.json().id).toBe(1); // the refused message's own id (JSON-RPC 2.0), not null
    const badKey = await send({ authorization: 'Bearer sk_live_unknownunknownunknownunknownunknown12' });
    expect([badKey.statusCode, badKey.json().id, badKey.json().error.data.error]).toEqual([401, 1, 'unauthorized']);
    expect((await send({ host: '127.0.0.1:3000', origin: 'http://evil.example' })).statusCode).toBe(403);
    expect((await send({ host: '127.0.0.1:3000' })).statusCode).toBe(200);
    expect((await send({ host: 'localhost:3000', origin: 'http://localhost:5173' })).statusCode).toBe(200);
    expect((await send({ host: '[::1]:3000' })).statusCode).toBe(200);
    // a server listening beyond loopback serves whatever name it is reached by
    const open = await createTestApp({ config: { host: '0.0.0.0' } });
    try {
      const { key: k } = await open.newKey(['read']);
      const res = await open.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${k}`, host: 'arena.example.com' },
        payload: list,
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});
