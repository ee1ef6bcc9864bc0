import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Owners act through /api/admin/* with `Authorization: Bearer <ADMIN_TOKEN>`; no answer is cached (a new key is in one). */
export function requireAdmin(adminToken: string) {
  const expected = digest(adminToken);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header('cache-control', 'no-store');
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    // Compare digests so the comparison takes the same time whatever was sent.
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      throw new ApiError(401, 'unauthorized', 'admin calls need Authorization: Bearer <ADMIN_TOKEN>');
    }
  };
}
