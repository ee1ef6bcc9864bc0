import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashKey, looksLikeKey } from '../../domain/api-keys.js';
import { findActiveKeyByHash } from '../../storage/keys-repo.js';
import type { AppContext, AuthedKey } from '../context.js';
import { ApiError } from '../errors.js';
import { applyKeyBudgets } from './rate-limit.js';

export function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match ? match[1]!.trim() : '';
  }
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey.trim();
  return null;
}

export async function resolveKey(ctx: AppContext, keyHash: string): Promise<AuthedKey | null> {
  const now = ctx.clock.now();
  const cached = ctx.keyCache.get(keyHash, now);
  if (cached) return cached;
  const row = await findActiveKeyByHash(ctx.database.db, keyHash);
  if (!row) return null;
  const key: AuthedKey = {
    keyId: row.id,
    userId: row.userId,
    scopes: row.scopes as AuthedKey['scopes'],
    agentName: row.agentName,
    agentModel: row.agentModel,
  };
  ctx.keyCache.set(keyHash, key, now);
  return key;
}

/** Resolves the key of every scoped route, applies its budgets, then checks the route's scope (contract §5). */
export function installAgentAuth(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const raw = presentedKey(request);
    if (raw === null) throw new ApiError(401, 'unauthorized', 'an API key is required: send Authorization: Bearer <key> or X-API-Key');
    if (!looksLikeKey(raw)) throw new ApiError(401, 'unauthorized', 'the API key is malformed');
    const key = await resolveKey(ctx, hashKey(raw));
    if (!key) throw new ApiError(401, 'unauthorized', 'the API key is invalid or revoked');
    request.agentKey = key;
    // Budgets count every identified call, including those refused for scope.
    await applyKeyBudgets(ctx, request, reply);
    if (scope !== 'any' && !key.scopes.includes(scope)) {
      throw new ApiError(403, 'insufficient_scope', `this call needs the "${scope}" scope`, { requiredScope: scope });
    }
  });
}
