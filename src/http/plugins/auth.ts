import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Scope } from '../../domain/api-keys.js';
import { hashKey, looksLikeKey } from '../../domain/api-keys.js';
import { findActiveKeyByHash } from '../../storage/keys-repo.js';
import type { AppContext, AuthedKey } from '../context.js';
import { ApiError } from '../errors.js';
import { CredentialsLockout, keyBudgets, rateLimited, type HookDone } from './rate-limit.js';
import { addRouteHook } from './route-hooks.js';

const BEARER = /^Bearer\s+(.+)$/i;

export function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const match = BEARER.exec(header.trim());
    return match ? match[1]!.trim() : '';
  }
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey.trim();
  return null;
}

/**
 * The key with this hash, from the cache or the database; null when there is none. A client
 * whose unknown keys cost too many look-ups this minute gets 429 without one (`ip`).
 */
export async function resolveKey(ctx: AppContext, keyHash: string, ip: string): Promise<AuthedKey | null> {
  const now = ctx.clock.now();
  const cached = ctx.keyCache.get(keyHash, now);
  if (cached) return cached;
  const waitMs = ctx.keyLookups.waitMs(ip, ctx.budgetClock.now());
  if (waitMs > 0) throw tooManyUnknownKeys(waitMs);
  const mark = ctx.keyCache.mark();
  const row = await findActiveKeyByHash(ctx.database.db, keyHash);
  if (!row) {
    await ctx.keyLookups.failed(ip, ctx.budgetClock.now());
    return null;
  }
  const key: AuthedKey = {
    keyId: row.id,
    userId: row.userId,
    scopes: row.scopes as AuthedKey['scopes'],
    agentName: row.agentName,
    agentModel: row.agentModel,
  };
  ctx.keyCache.set(keyHash, key, now, mark);
  return key;
}

const invalidKey = () => new ApiError(401, 'unauthorized', 'the API key is invalid or revoked');

const tooManyUnknownKeys = (waitMs: number): ApiError => rateLimited('too many unknown or revoked API keys from this address', waitMs / 1000, CredentialsLockout);

/**
 * Resolves the key of every scoped route, applies its request budget, checks the route's scope
 * (contract §5), then its trade-write budget. The hook is attached to the scoped routes only,
 * with their budgets and scope fixed at registration; a cached key is admitted without leaving
 * the call stack.
 */
export function installAgentAuth(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (!scope) return;
    const budgets = keyBudgets(ctx, Boolean(route.config?.tradeWrite));
    const admit = (request: FastifyRequest, reply: FastifyReply, key: AuthedKey, done: HookDone): void => {
      request.agentKey = key;
      // The request budget counts every identified call, including those refused for scope; the
      // trade-write budget only calls the key may make (a read-only key never spends it).
      budgets.requests(reply, key.keyId, (error) => {
        if (error) return done(error);
        const refusal = scopeRefusal(key, scope);
        if (refusal) return done(refusal);
        budgets.writes(reply, key.keyId, done);
      });
    };
    const hook: onRequestHookHandler = (request, reply, done) => {
      // a key's answers are its own: no shared cache may keep them (a key in X-API-Key does not
      // stop one the way Authorization does); a route with public data sets its own (candles, news)
      reply.header('cache-control', 'no-store');
      const raw = presentedKey(request);
      if (raw === null) throw new ApiError(401, 'unauthorized', 'an API key is required: send Authorization: Bearer <key> or X-API-Key');
      if (!looksLikeKey(raw)) throw new ApiError(401, 'unauthorized', 'the API key is malformed');
      const keyHash = hashKey(raw);
      const cached = ctx.keyCache.get(keyHash, ctx.clock.now());
      if (cached) return admit(request, reply, cached, done);
      resolveKey(ctx, keyHash, request.ip).then(
        (key) => (key ? admit(request, reply, key, done) : done(invalidKey())),
        (error: Error) => done(error),
      );
    };
    addRouteHook(route, 'onRequest', hook);
  });
}

function scopeRefusal(key: AuthedKey, scope: Scope | 'any'): ApiError | undefined {
  if (scope === 'any' || key.scopes.includes(scope)) return undefined;
  return new ApiError(403, 'insufficient_scope', `this call needs the "${scope}" scope`, { requiredScope: scope });
}
