import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import type { WindowHit } from '../../ratelimit/store.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { addRouteHook } from './route-hooks.js';

const MINUTE_MS = 60_000;

/** A hook's continuation: no argument admits the call, an error answers it. */
export type HookDone = (error?: Error) => void;

interface Budget {
  /** Bucket name without the caller part (key id or IP). */
  prefix: string;
  limit: number;
  limitText: string;
  name: string;
}

const budget = (prefix: string, limit: number, name: string): Budget => ({ prefix, limit, limitText: String(limit), name });

const isPromise = (value: WindowHit | Promise<WindowHit>): value is Promise<WindowHit> => typeof (value as Promise<WindowHit>).then === 'function';

/** A 429 for too many wrong credentials from one address, not a spent budget: metrics count it apart. */
export class CredentialsLockout extends ApiError {}

/** The 429 refusal: `rate_limited` with Retry-After, in seconds (at least 1). */
export function rateLimited(message: string, retryAfterSeconds: number, Refusal: typeof ApiError = ApiError): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new Refusal(429, 'rate_limited', `${message}; retry after ${seconds} s`, { retryAfterSeconds: seconds }, { 'Retry-After': String(seconds) });
}

/** Sets the RateLimit-* headers of `hit`; the 429 refusal when the budget is exhausted. */
function applyHit(reply: FastifyReply, b: Budget, hit: WindowHit, now: number): ApiError | undefined {
  const resetSeconds = Math.max(1, Math.ceil((hit.resetAtMs - now) / 1000));
  const resetText = String(resetSeconds);
  reply.header('RateLimit-Limit', b.limitText);
  reply.header('RateLimit-Remaining', String(Math.max(0, b.limit - hit.count)));
  reply.header('RateLimit-Reset', resetText);
  if (hit.count <= b.limit) return undefined;
  return rateLimited(`${b.name} of ${b.limit} per minute exceeded`, resetSeconds);
}

/**
 * Consumes one unit of each budget in order and sets the RateLimit-* headers of the
 * budget that governs the call (the trade-write one for trade writes). The first
 * exhausted budget answers 429 with Retry-After. Stays on the call stack while the store
 * answers synchronously (the in-process store); `done` is called exactly once.
 */
function consume(ctx: AppContext, reply: FastifyReply, budgets: Budget[], caller: string | number, done: HookDone, from = 0, now = ctx.budgetClock.now()): void {
  for (let i = from; i < budgets.length; i += 1) {
    const b = budgets[i]!;
    let hit: WindowHit | Promise<WindowHit>;
    try {
      hit = ctx.rateLimits.hit(b.prefix + caller, MINUTE_MS, now);
    } catch (error) {
      return unavailable(reply, error, done);
    }
    if (isPromise(hit)) {
      hit.then(
        (h) => {
          const refusal = applyHit(reply, b, h, now);
          if (refusal) done(refusal);
          else consume(ctx, reply, budgets, caller, done, i + 1, now);
        },
        (error: unknown) => unavailable(reply, error, done),
      );
      return;
    }
    const refusal = applyHit(reply, b, hit, now);
    if (refusal) return done(refusal);
  }
  done();
}

// A shared counter store that is down must not take trading down with it.
function unavailable(reply: FastifyReply, error: unknown, done: HookDone): void {
  reply.log.warn({ err: error }, 'rate-limit store unavailable; admitting the request');
  done();
}

type KeyBudget = (reply: FastifyReply, keyId: number, done: HookDone) => void;

/**
 * Per key: 120 requests/min across /api/agent/*, and 20 trade-writes/min on top (contract §8).
 * Returns the route's two checks (built once per route); `writes` admits at once on a route that
 * is not a trade write.
 */
export function keyBudgets(ctx: AppContext, tradeWrite: boolean): { requests: KeyBudget; writes: KeyBudget } {
  const requests = [budget('key:', ctx.config.agentRpm, 'request budget')];
  const writes = [budget('trade:', ctx.config.tradeWpm, 'trade-write budget')];
  return {
    requests: (reply, keyId, done) => consume(ctx, reply, requests, keyId, done),
    writes: tradeWrite ? (reply, keyId, done) => consume(ctx, reply, writes, keyId, done) : (_reply, _keyId, done) => done(),
  };
}

/**
 * One unit of the per-IP public budget for a call that is keyless only sometimes (`/mcp` without
 * a key); resolves the 429 refusal, if the budget is spent. Sets the RateLimit-* headers.
 */
export function spendPublicBudget(ctx: AppContext, reply: FastifyReply, ip: string): Promise<Error | undefined> {
  const budgets = publicBudgets(ctx);
  return new Promise((resolve) => consume(ctx, reply, budgets, ip, resolve));
}

const publicBudgets = (ctx: AppContext): Budget[] => [budget('ip:', ctx.config.publicRpm, 'public request budget')];

/** Keyless public routes share one per-IP budget. */
export function installPublicRateLimit(app: FastifyInstance, ctx: AppContext): void {
  const budgets = publicBudgets(ctx);
  const hook: onRequestHookHandler = (request, reply, done) => consume(ctx, reply, budgets, request.ip, done);
  app.addHook('onRoute', (route) => {
    if (route.config?.publicRate) addRouteHook(route, 'onRequest', hook);
  });
}
