import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { createClient, PaperArenaError, TRADE_WRITE_PATHS, unwrap } from '../../clients/typescript/src/index.js';
import { SNAPSHOT_PATH } from '../../scripts/openapi-document.js';

const BASE = 'http://arena.test';
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fake server that records what the client sent. */
function recorder(answer: (request: Request, n: number) => Response | Promise<Response>) {
  const sent: { url: string; method: string; headers: Headers; body: unknown }[] = [];
  const fetch = async (request: Request) => {
    const text = await request.clone().text();
    sent.push({ url: request.url, method: request.method, headers: request.headers, body: text ? JSON.parse(text) : null });
    return answer(request, sent.length);
  };
  return { sent, fetch };
}

const order = { coinId: '1', side: 'buy' as const, orderType: 'market' as const, quantity: 0.01 };

describe('typed client', () => {
  it('sends the key as a bearer token and returns typed data', async () => {
    const server = recorder(() => json(200, { userId: 'me', keyId: 7, agentName: 'scout', agentModel: null, scopes: ['read'] }));
    const client = createClient({ baseUrl: `${BASE}/`, apiKey: 'sk_live_x', fetch: server.fetch });
    const me = unwrap(await client.GET('/api/agent/me'));
    expect(me.keyId).toBe(7);
    expect(server.sent[0]!.url).toBe(`${BASE}/api/agent/me`);
    expect(server.sent[0]!.headers.get('authorization')).toBe('Bearer sk_live_x');
  });

  it('adds an idempotency key to a trade write without one, and keeps a key the caller gave', async () => {
    const server = recorder(() => json(200, { message: 'filled', orderId: 1, summary: { side: 'buy', quantity: 0.01, coinId: '1' } }));
    let n = 0;
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: server.fetch, newIdempotencyKey: () => `auto-${++n}` });
    await client.POST('/api/agent/spot/order', { body: order });
    await client.POST('/api/agent/spot/order', { body: { ...order, idempotencyKey: 'mine' } });
    await client.POST('/api/agent/spot/quote', { body: { coinId: '1', side: 'buy', quantity: 0.01 } });
    expect(server.sent.map((s) => (s.body as { idempotencyKey?: string }).idempotencyKey)).toEqual(['auto-1', 'mine', undefined]);
  });

  it('retries a trade write once after a network failure with the same key', async () => {
    const server = recorder((_r, n) => {
      if (n === 1) throw new TypeError('fetch failed');
      return json(200, { message: 'filled', orderId: 9, summary: { side: 'buy', quantity: 0.01, coinId: '1' } });
    });
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: server.fetch });
    const placed = unwrap(await client.POST('/api/agent/spot/order', { body: order }));
    expect(placed.orderId).toBe(9);
    expect(server.sent).toHaveLength(2);
    const keys = server.sent.map((s) => (s.body as { idempotencyKey: string }).idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('retries so behind a proxy path too (baseUrl http://host/paper): the route is what follows the base path', async () => {
    const server = recorder((_r, n) => {
      if (n === 1) throw new TypeError('fetch failed');
      return json(200, { message: 'filled', orderId: 10, summary: { side: 'buy', quantity: 0.01, coinId: '1' } });
    });
    const client = createClient({ baseUrl: `${BASE}/paper/`, apiKey: 'k', fetch: server.fetch });
    expect(unwrap(await client.POST('/api/agent/spot/order', { body: order })).orderId).toBe(10);
    expect(server.sent.map((s) => s.url)).toEqual([`${BASE}/paper/api/agent/spot/order`, `${BASE}/paper/api/agent/spot/order`]);
    expect((server.sent[1]!.body as { idempotencyKey: string }).idempotencyKey).toBe((server.sent[0]!.body as { idempotencyKey: string }).idempotencyKey);
  });

  it('throws a typed error with the envelope and Retry-After on 429', async () => {
    const server = recorder(() => json(429, { error: 'rate_limited', message: 'slow down', retryAfterSeconds: 12 }, { 'retry-after': '12' }));
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: server.fetch });
    const result = await client.GET('/api/agent/portfolio');
    expect(result.error?.error).toBe('rate_limited');
    let thrown: unknown;
    try {
      unwrap(result);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PaperArenaError);
    expect(thrown).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 12 });
  });

  it('names a 400 field', async () => {
    const server = recorder(() => json(400, { error: 'invalid_request', message: 'query.limit must be <= 100', field: 'query.limit' }));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch });
    expect(() => unwrap({ error: { error: 'x', message: 'm' }, response: new Response(null, { status: 500 }) })).toThrow('500 x: m');
    const result = await client.GET('/api/agent/trades', { params: { query: { limit: 1000 } } });
    expect(() => unwrap(result)).toThrow(expect.objectContaining({ field: 'query.limit', status: 400 }));
  });
});

describe('client types stay in step with the document', () => {
  const doc = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8')) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
  };

  it('reads the jsonl form of the decisions dataset as text with parseAs, as its README shows', async () => {
    const lines = '{"decisionUuid":"a"}\n{"decisionUuid":"b"}\n';
    const server = recorder(() => new Response(lines, { status: 200, headers: { 'content-type': 'application/x-ndjson' } }));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch });
    const { data } = await client.GET('/api/arena/decisions', { params: { query: { format: 'jsonl' } }, parseAs: 'text' });
    const read = (lines: unknown) => ((lines as string | undefined) ?? '').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { decisionUuid: string });
    expect(read(data).map((d) => d.decisionUuid)).toEqual(['a', 'b']);
    expect(server.sent[0]!.url).toBe(`${BASE}/api/arena/decisions?format=jsonl`);
    // a fresh install has no decision yet: an empty body, which openapi-fetch hands back as undefined
    const empty = createClient({ baseUrl: BASE, fetch: async () => new Response('', { status: 200, headers: { 'content-type': 'application/x-ndjson', 'content-length': '0' } }) });
    const none = await empty.GET('/api/arena/decisions', { params: { query: { format: 'jsonl' } }, parseAs: 'text' });
    expect(read(none.data)).toEqual([]);
  });

  it('lists exactly the writes whose body takes an idempotencyKey', () => {
    const withKey = Object.entries(doc.paths)
      .filter(([, ops]) => ops.post?.requestBody?.content['application/json']?.schema.properties?.idempotencyKey)
      .map(([path]) => path)
      .sort();
    expect([...TRADE_WRITE_PATHS].sort()).toEqual(withKey);
  });

  it('has generated types that match the committed OpenAPI snapshot (run `npm --prefix clients/typescript run generate`)', async () => {
    const fresh = astToString(await openapiTS(SNAPSHOT_PATH));
    const committed = readFileSync(new URL('../../clients/typescript/src/schema.d.ts', import.meta.url), 'utf8');
    expect(committed.replace(/^\/\*\*[\s\S]*?\*\/\n\n/, '')).toBe(fresh);
  });
});
