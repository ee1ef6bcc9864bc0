import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import { UNKNOWN_PARAM_CODES } from '../unknown-param.js';
import { isDatabaseUnavailable } from '../../storage/sql-state.js';

type ValidationIssue = { instancePath: string; params: object; message?: string };

/**
 * The offending field of a schema validation failure (e.g. `body.quantity` or `query.limit`) and
 * a message naming it, from the validator's first error; `where` is the request part.
 */
export function validationProblem(issues: readonly ValidationIssue[] | null | undefined, where: string): { field: string; message: string } {
  const first = issues?.[0];
  if (!first) return { field: where, message: `${where} is invalid` };
  const params = first.params as Record<string, unknown>;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  const field = [where, path, extra].filter((p) => p !== undefined && p !== '').join('.');
  if (params.additionalProperty) return { field, message: `${field} is not a known field` };
  if (params.missingProperty) return { field, message: `${field} is required` };
  return { field, message: `${field} ${first.message ?? 'is invalid'}` };
}

/**
 * Validation failures that mean "no such id" rather than "malformed": a control character, or a
 * number outside every id's range (beyond 2^53 − 1, not finite). Shape failures (a type, a
 * length, a pattern) stay 400, the contract's "bad id" / "bad handle".
 */
const CANNOT_NAME_ANYTHING = new Set(['x-no-controls', 'x-no-controls-deep', 'x-no-control-keys', 'x-finite', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']);

/**
 * One envelope for every error; bad input is always 4xx; no stack or SQL ever leaves.
 * `pageNotFound` answers unmatched addresses that belong to the web pages (null: not one of them).
 */
export function installErrorHandling(app: FastifyInstance, pageNotFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | null): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).headers(error.headers).send(error.body());
    }
    if (error.validation) {
      const { field, message } = validationProblem(error.validation, error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'request'));
      const unknownCode = error.validationContext === 'params' ? UNKNOWN_PARAM_CODES[request.routeOptions.url ?? ''] : undefined;
      if (unknownCode && CANNOT_NAME_ANYTHING.has(error.validation[0]?.keyword ?? '')) return reply.status(404).send({ error: unknownCode, message: `no resource for ${field}` });
      return reply.status(400).send({ error: 'invalid_request', message, field });
    }
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.status(413).send({ error: 'payload_too_large', message: 'the request body is over 64 KB' });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(415).send({ error: 'unsupported_media_type', message: 'send the body as application/json' });
    }
    if (status >= 400 && status < 500) {
      const message = error instanceof SyntaxError || /JSON/i.test(error.message) ? 'the body is not valid JSON' : error.message;
      return reply.status(status).send({ error: 'invalid_request', message, field: 'body' });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return reply.status(503).header('Retry-After', '5').send({ error: 'database_unavailable', message: 'the database cannot be reached right now; retry in a few seconds' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'internal_error', message: 'an unexpected error occurred' });
  });

  app.setNotFoundHandler((request, reply) => {
    const page = pageNotFound?.(request, reply);
    if (page) return page;
    const path = request.url.split('?')[0]!;
    const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    reply.status(404).send({ error: 'not_found', message: `no route ${request.method} ${shown}` });
  });
}

/** Path parameters longer than this never reach a route (the router answers 414 in the envelope). */
export const MAX_PARAM_LENGTH = 512;

/** Router-level failures (bad percent-encoding, over-long parameters) in the envelope, never echoing the URL. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send({ error: 'uri_too_long', message: `a path parameter is over ${MAX_PARAM_LENGTH} characters` });
    return;
  }
  const message = error.code === 'FST_ERR_BAD_URL' ? 'the URL is not valid percent-encoding' : 'the request URL is not valid';
  void reply.status(400).send({ error: 'invalid_request', message, field: 'url' });
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'the request headers are over the 16 KB limit'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request was not received in time'],
};

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers over 16 KB, broken
 * HTTP): the envelope with `Connection: close`, so a keep-alive client opens a new socket for its
 * next request instead of writing into a closed one.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'invalid_request', 'the request is not valid HTTP'];
  this.log.debug({ code: error.code, status }, 'client error');
  closeWithError(socket, status, code, message);
}

/** Answers the envelope straight on the socket with `Connection: close`, then closes it. */
export function closeWithError(socket: Socket, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: code, message });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** How often a process says it is dropping connections at its cap (not once per dropped connection). */
const DROP_REPORT_EVERY_MS = 30_000;

/**
 * At most `max` open connections (keep-alive and streams included): past it Node drops a new
 * connection at once. Without a cap every idle socket a client opens is kept, until memory or
 * file descriptors run out for the database too.
 */
export function capConnections(app: FastifyInstance, max: number): void {
  app.server.maxConnections = max;
  let reportedAt = -Infinity;
  app.server.on('drop', (data?: { remoteAddress?: string }) => {
    const now = Date.now();
    if (now - reportedAt < DROP_REPORT_EVERY_MS) return;
    reportedAt = now;
    app.log.warn({ maxConnections: max, remoteAddress: data?.remoteAddress }, 'connection limit reached: dropping new connections (MAX_CONNECTIONS)');
  });
}

/**
 * A request body not received within `ms` of its headers is answered 408 and its connection
 * closed: Fastify reads a body without a deadline (its requestTimeout did not end one either),
 * so a body left unfinished held its connection for good.
 */
export function timeOutSlowBodies(app: FastifyInstance, ms: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || (raw.headers['content-length'] === undefined && raw.headers['transfer-encoding'] === undefined)) return done();
    const timer = setTimeout(() => {
      if (!raw.complete) closeWithError(raw.socket, 408, 'request_timeout', `the request body did not arrive within ${ms / 1000} s`);
    }, ms);
    timer.unref();
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
