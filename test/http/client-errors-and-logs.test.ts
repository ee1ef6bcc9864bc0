import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOG_LINE_BYTES, redactUrl } from '../../src/http/logging.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { HARNESS_URL, registerHarnessWrite } from '../support/harness-write.js';

// Issue 12 items 5 (errors outside the envelope) and 6 (secrets in logs), on a listening server.
const lines: string[] = [];
let t: TestApp;
let base: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  t = await createTestApp({
    extraRoutes: registerHarnessWrite,
    config: { logLevel: 'info' },
    logStream: { write: (line: string) => void lines.push(line) },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  agent.destroy();
  await t.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request over the shared keep-alive agent (rawPath is sent as written, not re-encoded). */
function request(rawPath: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/`, { agent, path: rawPath, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const envelope = (a: Answer) => {
  const body = JSON.parse(a.body) as { error: unknown; message: unknown };
  expect(typeof body.error).toBe('string');
  expect(body.error).toMatch(/^[a-z_]+$/);
  expect(typeof body.message).toBe('string');
  return body;
};

describe('errors outside the router answer the envelope (item 5)', () => {
  it('answers 431 in the envelope with Connection: close, and the next keep-alive request succeeds', async () => {
    expect((await request('/healthz')).status).toBe(200);
    const big = await request('/healthz', { 'x-padding': 'p'.repeat(20_000) });
    expect(big.status).toBe(431);
    expect(big.headers.connection).toBe('close');
    expect(envelope(big).error).toBe('headers_too_large');
    const next = await request('/healthz');
    expect(next.status).toBe(200);
  });

  it('answers bad percent-encoding and over-long path parameters in the envelope without echoing the URL', async () => {
    const bad = await request('/api/competitions/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({ error: 'invalid_request', field: 'url' });
    const long = 'a'.repeat(2_000);
    const tooLong = await request(`/api/competitions/${long}`);
    expect(tooLong.status).toBe(414);
    expect(envelope(tooLong).error).toBe('uri_too_long');
    expect(tooLong.body).not.toContain(long);
    const overSchema = await request(`/api/competitions/${'a'.repeat(200)}`);
    expect(overSchema.status).toBe(400);
    expect(envelope(overSchema)).toMatchObject({ error: 'invalid_request', field: 'params.slug' });
    const nul = await request('/api/competitions/%00');
    expect(nul.status).toBe(404);
    expect(envelope(nul).error).toBe('competition_not_found');
    expect((await request('/healthz')).status).toBe(200);
  });
});

describe('logs (item 6)', () => {
  it('redacts key-like query parameters from logged URLs', async () => {
    expect(redactUrl('/api/agent/me?api_key=sk_live_abc&limit=5&token=t1&x-api-key=k&access_token=z')).toBe(
      '/api/agent/me?api_key=[redacted]&limit=5&token=[redacted]&x-api-key=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/api/agent/me?accessToken=a&sessionToken=b&limit=5&note=sk_live_abc123')).toBe(
      '/api/agent/me?accessToken=[redacted]&sessionToken=[redacted]&limit=5&note=sk_live_[redacted]',
    );
    expect(redactUrl('/api/agent/sk_live_pathpart9/x')).toBe('/api/agent/sk_live_[redacted]/x');
    const secret = 'sk_live_secretvalue1234567890';
    await request(`/api/agent/me?api_key=${secret}&key=${secret}`);
    const logged = lines.filter((l) => l.includes('/api/agent/me'));
    expect(logged.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(secret);
  });

  it('logs SQL errors with their code and constraint only, never the statement parameters', async () => {
    const { key } = await t.newKey();
    const idempotencyKey = 'too-much-param-marker';
    const res = await t.app.inject({ method: 'POST', url: HARNESS_URL, headers: bearer(key), payload: { amount: 1e12, idempotencyKey } });
    expect(res.statusCode).toBe(500);
    const errorLines = lines.filter((l) => l.includes('unhandled error'));
    expect(errorLines.length).toBeGreaterThan(0);
    const last = JSON.parse(errorLines.at(-1)!);
    expect(last.err.sqlState).toMatch(/^23/);
    expect(typeof last.err.constraint).toBe('string');
    expect(errorLines.at(-1)).not.toContain(idempotencyKey);
    expect(errorLines.at(-1)).not.toMatch(/params|insert into|select /i);
  });

  it('never writes a log line over 8 KB', async () => {
    t.app.log.warn({ blob: 'x'.repeat(50_000) }, 'm'.repeat(20_000));
    const last = lines.at(-1)!;
    expect(Buffer.byteLength(last)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(JSON.parse(last)).toMatchObject({ truncated: true, level: 40 });
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
  });
});
