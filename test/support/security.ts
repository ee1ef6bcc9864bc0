import { describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/domain/api-keys.js';
import type { TestApp } from './app.js';

export interface KeyedRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  /** The scope the route needs, or 'any' for any valid key. */
  scope: Scope | 'any';
  /** A valid body; a function when each call needs a fresh one (e.g. idempotency keys). */
  payload?: object | (() => object);
  tradeWrite?: boolean;
  /** Builds a resource owned by another key and the request that reaches for it (expects 404). */
  foreignResource?: (t: TestApp, callerKey: string) => Promise<{ method: KeyedRoute['method']; url: string; payload?: object }>;
}

/**
 * The security suite every keyed route runs, in one line:
 * `keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/me', scope: 'any' })`.
 */
export function keyedRouteSecurity(getApp: () => TestApp, route: KeyedRoute): void {
  const body = () => (typeof route.payload === 'function' ? route.payload() : route.payload);
  const call = (headers: Record<string, string>) =>
    getApp().app.inject({ method: route.method, url: route.url, headers, payload: body() });

  describe(`security of ${route.method} ${route.url}`, () => {
    it('answers 401 without a key', async () => {
      const res = await call({});
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('unauthorized');
    });

    it('answers 401 for a malformed or unknown key', async () => {
      expect((await call({ authorization: 'Bearer not-a-key' })).statusCode).toBe(401);
      expect((await call({ 'x-api-key': 'sk_live_000000000000000000000000000000000000000000' })).statusCode).toBe(401);
    });

    it('answers 401 for a revoked key on its next request', async () => {
      const t = getApp();
      const { key, keyId } = await t.newKey();
      expect((await call({ authorization: `Bearer ${key}` })).statusCode).not.toBe(401);
      const revoke = await t.app.inject({
        method: 'POST',
        url: `/api/admin/keys/${keyId}/revoke`,
        headers: { authorization: `Bearer ${t.ctx.adminToken}` },
      });
      expect(revoke.statusCode).toBe(200);
      expect((await call({ authorization: `Bearer ${key}` })).statusCode).toBe(401);
    });

    if (route.scope !== 'any') {
      const needed = route.scope;
      it(`answers 403 for a key without "${needed}"`, async () => {
        const { key } = await getApp().newKey(SCOPES.filter((s) => s !== needed));
        const res = await call({ authorization: `Bearer ${key}` });
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toBe('insufficient_scope');
      });
    }

    it('answers 429 with Retry-After and RateLimit headers once the budget is spent', async () => {
      const t = getApp();
      const { key } = await t.newKey();
      const budget = route.tradeWrite ? t.ctx.config.tradeWpm : t.ctx.config.agentRpm;
      for (let i = 0; i < budget; i += 1) {
        const res = await call({ authorization: `Bearer ${key}` });
        expect(res.statusCode).not.toBe(429);
        expect(Number(res.headers['ratelimit-remaining'])).toBe(budget - i - 1);
      }
      const limited = await call({ authorization: `Bearer ${key}` });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.headers['ratelimit-limit']).toBe(String(budget));
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    });

    if (route.foreignResource) {
      const reach = route.foreignResource;
      it("answers 404 for another key's resource", async () => {
        const t = getApp();
        const { key } = await t.newKey();
        const target = await reach(t, key);
        const res = await t.app.inject({ ...target, headers: { authorization: `Bearer ${key}` } });
        expect(res.statusCode).toBe(404);
      });
    }
  });
}
