import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export type LedgerChannel = 'mcp';

/** The header an in-process MCP dispatch carries; its value is a secret minted per process. */
export const CHANNEL_HEADER = 'x-paper-arena-internal-channel';

/**
 * Marks in-process calls made on behalf of an MCP tool so the ledger records channel `mcp`.
 * The mark is a random per-process secret: an outside client cannot guess it, and the header
 * is removed from every request before any handler sees it, whatever its value.
 */
export function installInternalChannel(app: FastifyInstance): Record<string, string> {
  const secret = Buffer.from(`mcp:${randomBytes(24).toString('base64url')}`);
  app.addHook('onRequest', (request, _reply, done) => {
    const presented = request.headers[CHANNEL_HEADER];
    if (presented !== undefined) {
      delete request.headers[CHANNEL_HEADER];
      const given = Buffer.from(String(presented));
      if (given.length === secret.length && timingSafeEqual(given, secret)) request.ledgerChannel = 'mcp';
    }
    done();
  });
  return { [CHANNEL_HEADER]: secret.toString() };
}
