import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { ErrorBody } from '../../schemas.js';
import { CredentialsLockout, rateLimited } from '../../plugins/rate-limit.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** What requireAdmin answers, in every admin route's responses: a wrong token, and an address past 60 wrong credentials a minute. */
export const adminRefusals = { 401: ErrorBody, 429: ErrorBody };

/**
 * Owners act through /api/admin/* with `Authorization: Bearer <ADMIN_TOKEN>`; no answer is cached (a new key is in one).
 * Wrong tokens count with unknown API keys: an address past 60 failures a minute gets 429 until
 * the minute ends (an operator-set token may be as short as 16 characters).
 */
export function requireAdmin(ctx: Pick<AppContext, 'adminToken' | 'keyLookups' | 'budgetClock'>) {
  const expected = digest(ctx.adminToken);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header('cache-control', 'no-store');
    const waitMs = ctx.keyLookups.waitMs(request.ip, ctx.budgetClock.now());
    if (waitMs > 0) throw rateLimited('too many wrong credentials from this address', waitMs / 1000, CredentialsLockout);
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    // Compare digests so the comparison takes the same time whatever was sent.
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      await ctx.keyLookups.failed(request.ip, ctx.budgetClock.now());
      throw new ApiError(401, 'unauthorized', 'admin calls need Authorization: Bearer <ADMIN_TOKEN>');
    }
  };
}
