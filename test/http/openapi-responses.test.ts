import { describe, expect, it } from 'vitest';
import { currentOpenApiDocument } from '../../scripts/openapi-document.js';
import { undeclared } from '../../src/http/plugins/response-check.js';

interface Op {
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

/** An object schema that names no field at all (what OpenObject used to publish for whole responses). */
const isEmptyOpenObject = (s: Record<string, unknown>) =>
  s.type === 'object' && s.additionalProperties === true && Object.keys((s.properties as object | undefined) ?? {}).length === 0;

describe('the published document', async () => {
  const doc = (await currentOpenApiDocument()) as { paths: Record<string, Record<string, Op>> };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

  it('gives every response of every operation a schema that names its fields', () => {
    const missing = ops.flatMap(({ name, op }) =>
      Object.entries(op.responses).flatMap(([status, r]) => {
        const schema = r.content ? Object.values(r.content)[0]?.schema : undefined;
        if (!schema) return status === '304' ? [] : [`${name} ${status}: no schema`];
        return isEmptyOpenObject(schema) ? [`${name} ${status}: open object`] : [];
      }),
    );
    expect(ops.length).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it('publishes query parameters that have a default as optional', () => {
    const trades = doc.paths['/api/agent/trades']!.get!.parameters!;
    expect(trades.find((p) => p.name === 'limit')?.required).not.toBe(true);
    expect(trades.find((p) => p.name === 'venue')?.required).not.toBe(true);
  });
});

describe('what the document declares beyond the bodies', async () => {
  type Doc = { paths: Record<string, Record<string, Op & { operationId?: string; responses: Record<string, { headers?: Record<string, unknown> }> }>> };
  const doc = (await currentOpenApiDocument()) as Doc;
  const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
  const headerNames = (path: string, status: string, method = 'get') => Object.keys(doc.paths[path]![method]!.responses[status]?.headers ?? {});

  it('names every operation once (code generators name their methods after it)', () => {
    const ids = operations.map((op) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z]+[A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/agent/spot/order']!.post!.operationId).toBe('postAgentSpotOrder');
    expect(doc.paths['/api/prediction-markets/events/{source}/{slug}']!.get!.operationId).toBe('getPredictionMarketsEventsBySourceBySlug');
  });

  it('says which operations need no credentials (an empty security requirement), which need a key or the admin token', () => {
    const security = (path: string, method = 'get') => (doc.paths[path]![method] as { security?: unknown }).security;
    expect(security('/api/prediction-markets/events')).toEqual([]);
    expect(security('/api/arena')).toEqual([]);
    expect(security('/api/agent/me')).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(security('/api/admin/users')).toEqual([{ adminToken: [] }]);
    expect(operations.every((op) => Array.isArray((op as { security?: unknown }).security))).toBe(true);
  });

  it('declares the ledger and rate headers of keyed calls, Retry-After on refusals, ETag and 304 on cached reads', () => {
    expect(headerNames('/api/agent/spot/order', '200', 'post')).toEqual(expect.arrayContaining(['X-Service-Ledger-Event-Id', 'X-Service-Ledger-Status', 'RateLimit-Remaining']));
    expect(headerNames('/api/agent/spot/order', '429', 'post')).toContain('Retry-After');
    expect(headerNames('/api/agent/spot/order', '200', 'post')).not.toContain('Retry-After');
    expect(headerNames('/api/prediction-markets/events', '200')).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'ETag']);
    expect(doc.paths['/api/prediction-markets/events']!.get!.responses['304']).toBeDefined();
    expect(doc.paths['/api/agent/portfolio']!.get!.responses['304']).toBeUndefined();
    expect(headerNames('/api/admin/users', '429')).toEqual(['Retry-After']);
    const candles = doc.paths['/api/agent/market/{coinId}/candles']!.get!;
    expect(candles.parameters!.some((p) => p.in === 'header' && p.name === 'if-none-match')).toBe(true);
    expect(doc.paths['/api/prediction-markets/stream']!.get!.parameters!.map((p) => p.name)).toContain('last-event-id');
  });

  it('the response check reads the document by the route as Fastify names it', () => {
    expect(undeclared(doc.paths, 'GET', '/api/agent/market/:coinId/candles', 304, ['etag', 'ratelimit-remaining', 'x-request-id'])).toEqual([]);
    expect(undeclared(doc.paths, 'GET', '/api/agent/me', 200, ['etag'])).toEqual(['header etag is not declared for status 200']);
    expect(undeclared(doc.paths, 'POST', '/api/agent/spot/order', 200, ['retry-after'])).toEqual(['header retry-after is not declared for status 200']);
    expect(undeclared(doc.paths, 'GET', '/api/agent/me', 418, [])).toEqual(['status 418 is not in the published document']);
  });
});
