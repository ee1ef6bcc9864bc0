import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/** Names the offending field of a schema validation failure, e.g. `body.quantity` or `query.limit`. */
function fieldOf(error: FastifyError): string {
  const first = error.validation?.[0];
  const where = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'request');
  if (!first) return where;
  const params = first.params as Record<string, unknown>;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  const parts = [where, path, extra].filter((p) => p !== undefined && p !== '');
  return parts.join('.');
}

function validationMessage(error: FastifyError, field: string): string {
  const first = error.validation?.[0];
  const params = (first?.params ?? {}) as Record<string, unknown>;
  if (params.additionalProperty) return `${field} is not a known field`;
  if (params.missingProperty) return `${field} is required`;
  return `${field} ${first?.message ?? 'is invalid'}`;
}

/** One envelope for every error; bad input is always 4xx; no stack or SQL ever leaves. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).headers(error.headers).send(error.body());
    }
    if (error.validation) {
      const field = fieldOf(error);
      return reply.status(400).send({ error: 'invalid_request', message: validationMessage(error, field), field });
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
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'internal_error', message: 'an unexpected error occurred' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` });
  });
}
