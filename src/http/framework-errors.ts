/**
 * Errors the framework itself answers on any route, before a handler runs: a bad request
 * (400), a body over the limit (413) or of another media type (415), a path parameter that can
 * name nothing (404) or is too long (414); and on any route, 503 — a closing server
 * (`shutting_down`) or a database that cannot be reached (`database_unavailable`). Every
 * route's published responses list them with the one error envelope, so the document says what
 * a client can get back.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from './schemas.js';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export function frameworkErrorStatuses(route: Pick<RouteOptions, 'method' | 'url'>): number[] {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const statuses = [400, 503];
  if (methods.some((m) => WITH_BODY.has(m))) statuses.push(413, 415);
  if (route.url.includes(':')) statuses.push(404, 414);
  return statuses;
}

export function declareFrameworkErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response) return;
    for (const status of frameworkErrorStatuses(route)) response[String(status)] ??= ErrorBody;
  });
}
