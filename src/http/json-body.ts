import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

/**
 * The API reads JSON bodies only, parsed as Fastify's own parser does (prototype-poisoning checks
 * included), except that an empty body is no body: clients that send `Content-Type:
 * application/json` on every POST could not call a bodyless route (a spot order cancel) — Fastify
 * answered 400. A route that needs a body still refuses the missing one by its schema (400 naming
 * `body`).
 */
export function jsonBodiesOnly(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // JSON is the only body the API reads: text/plain answers 415 like any other media type, not a
  // 400 "body must be object" from a string that Fastify's text parser let through.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Bodies are read as sent: a compressed one was refused as "not JSON", and plain JSON labelled
    // gzip was taken — a proxy decoding it would have read another body (RFC 9110: 415).
    const coding = request.headers['content-encoding']?.trim().toLowerCase();
    if (coding !== undefined && coding !== '' && coding !== 'identity') {
      done(new ApiError(415, 'unsupported_media_type', `Content-Encoding ${coding} is not supported: send the body uncompressed`, {}, { 'Accept-Encoding': 'identity' }), undefined);
      return;
    }
    if (body === '') {
      done(null, undefined);
      return;
    }
    parse(request, body as string, done);
  });
}
