import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, bearer, type TestApp } from '../support/app.js';
import { keyedRouteSecurity } from '../support/security.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('GET /api/agent/me', () => {
  it('returns the identity of any valid key, whatever its scopes', async () => {
    const { key, keyId } = await t.newKey(['trade:pm'], { agentName: 'Scout' });
    const res = await t.app.inject({ url: '/api/agent/me', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ userId: 'tester', keyId, agentName: 'Scout', agentModel: null, scopes: ['trade:pm'] });
  });

  it('accepts the key in X-API-Key as well', async () => {
    const { key, keyId } = await t.newKey(['read']);
    const res = await t.app.inject({ url: '/api/agent/me', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.json().keyId).toBe(keyId);
  });

  it('echoes a sane x-request-id and mints one otherwise', async () => {
    const { key } = await t.newKey(['read']);
    const echoed = await t.app.inject({ url: '/api/agent/me', headers: { ...bearer(key), 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const minted = await t.app.inject({ url: '/api/agent/me', headers: { ...bearer(key), 'x-request-id': 'bad id\u0007' } });
    expect(minted.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/me', scope: 'any' });
keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/ledger', scope: 'read' });
keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/ledger/export', scope: 'read' });
