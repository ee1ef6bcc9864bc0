import type { FastifyInstance } from 'fastify';

/** Fastify's own closing reply off: `answerWhileClosing` answers instead. */
export const closingOptions = { return503OnClosing: false } as const;

/**
 * Once the server closes, a request that still arrives on a kept-alive connection gets 503
 * `shutting_down` in the error envelope (Fastify's own closing reply has no stable code) and
 * the connection is closed, so the client reconnects elsewhere; requests already running finish.
 */
export function answerWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    void reply.code(503).header('connection', 'close').send({ error: 'shutting_down', message: 'the server is shutting down; retry on another process or after it restarts' });
  });
}
