import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';

const MINUTE_MS = 60_000;

interface Budget {
  bucket: string;
  limit: number;
  name: string;
}

/**
 * Consumes one unit of each budget in order and sets the RateLimit-* headers of the
 * budget that governs the call (the trade-write one for trade writes). The first
 * exhausted budget answers 429 with Retry-After.
 */
async function consume(ctx: AppContext, reply: FastifyReply, budgets: Budget[]): Promise<void> {
  const now = ctx.clock.now();
  for (const budget of budgets) {
    let hit;
    try {
      hit = await ctx.rateLimits.hit(budget.bucket, MINUTE_MS, now);
    } catch (error) {
      // A shared counter store that is down must not take trading down with it.
      reply.log.warn({ err: error }, 'rate-limit store unavailable; admitting the request');
      return;
    }
    const resetSeconds = Math.max(1, Math.ceil((hit.resetAtMs - now) / 1000));
    reply.header('RateLimit-Limit', String(budget.limit));
    reply.header('RateLimit-Remaining', String(Math.max(0, budget.limit - hit.count)));
    reply.header('RateLimit-Reset', String(resetSeconds));
    if (hit.count > budget.limit) {
      throw new ApiError(
        429,
        'rate_limited',
        `${budget.name} of ${budget.limit} per minute exceeded; retry after ${resetSeconds} s`,
        { retryAfterSeconds: resetSeconds },
        { 'Retry-After': String(resetSeconds) },
      );
    }
  }
}

/** Per key: 120 requests/min across /api/agent/*, and 20 trade-writes/min on top (contract §8). */
export async function applyKeyBudgets(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const keyId = request.agentKey!.keyId;
  const budgets: Budget[] = [{ bucket: `key:${keyId}`, limit: ctx.config.agentRpm, name: 'request budget' }];
  if (request.routeOptions.config.tradeWrite) {
    budgets.push({ bucket: `trade:${keyId}`, limit: ctx.config.tradeWpm, name: 'trade-write budget' });
  }
  await consume(ctx, reply, budgets);
}

/** Keyless public routes share one per-IP budget. */
export function installPublicRateLimit(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.publicRate) return;
    await consume(ctx, reply, [{ bucket: `ip:${request.ip}`, limit: ctx.config.publicRpm, name: 'public request budget' }]);
  });
}
