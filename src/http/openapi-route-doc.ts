import type { FastifySchema, RouteOptions } from 'fastify';

/**
 * What the OpenAPI document says about a route beyond its own schema, derived from the route's
 * config so it cannot drift from what the hooks do: an operationId (code generators name methods
 * after it), a description per status, and the response headers the service sends
 * (contract §5.7 ledger headers, §8 rate headers and Retry-After, ETag / 304 on cached reads).
 * The test-only response check (plugins/response-check.ts) fails a response carrying one of
 * these headers, or a status, that the published document does not declare for its route.
 */

type HeaderDoc = { type: 'integer' | 'string'; description: string };

const RATE_HEADERS: Record<string, HeaderDoc> = {
  'RateLimit-Limit': { type: 'integer', description: 'the budget that governs this call, in requests per minute' },
  'RateLimit-Remaining': { type: 'integer', description: 'requests left in the current minute' },
  'RateLimit-Reset': { type: 'integer', description: 'seconds until the budget resets' },
};
const LEDGER_HEADERS: Record<string, HeaderDoc> = {
  'X-Service-Ledger-Event-Id': { type: 'integer', description: 'the id of the private ledger row that records this call (GET /api/agent/ledger)' },
  'X-Service-Ledger-Status': { type: 'string', description: 'success, rejected, idempotent_replay or error; absent when the ledger could not record the call (fail-open)' },
};
const RETRY_AFTER: Record<string, HeaderDoc> = { 'Retry-After': { type: 'integer', description: 'seconds to wait before retrying' } };
const ETAG: Record<string, HeaderDoc> = { ETag: { type: 'string', description: 'send it back as If-None-Match: 304 without a body while the answer is unchanged' } };

/** The response headers of a status, by the route's config. */
export function documentedHeaders(config: RouteOptions['config'] | undefined, status: string, adminRoute: boolean): Record<string, HeaderDoc> {
  const budgeted = config?.scope !== undefined || config?.publicRate === true;
  // a 503 can come from any route (database unavailable); a 429 from the budgets and admin credentials
  const retrying = status === '503' || (status === '429' && (budgeted || adminRoute));
  return {
    ...(config?.scope !== undefined ? LEDGER_HEADERS : {}),
    ...(budgeted ? RATE_HEADERS : {}),
    ...(retrying ? RETRY_AFTER : {}),
    ...(config?.conditional && (status === '200' || status === '304') ? ETAG : {}),
  };
}

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '304': 'Not modified: If-None-Match named the current ETag (no body)',
  '400': 'Invalid input: `error` is a stable code, `field` names the offending input',
  '401': 'Missing, unknown or revoked credentials',
  '403': 'The key lacks the scope this call needs (`requiredScope`)',
  '404': 'Not found',
  '409': 'Conflict with the current state (e.g. an idempotencyKey reused with a different body)',
  '413': 'Request body too large',
  '414': 'Request URI too long',
  '415': 'Unsupported media type or content coding',
  '422': 'Well-formed but refused by a rule of the call',
  '429': 'A rate budget is spent: wait Retry-After seconds',
  '503': 'Temporarily unavailable: retry after Retry-After seconds (a write with the same idempotencyKey)',
};

/** `GET /api/agent/spot/orders/:id` → `getAgentSpotOrdersById`: stable, unique per method and path. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api')
    .flatMap((segment) => (segment.startsWith(':') ? ['by', segment.slice(1)] : segment.split(/[-_.]/)));
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

const NOT_MODIFIED = { type: 'null', description: STATUS_TEXT['304'] };
const IF_NONE_MATCH = { type: 'string', description: 'an ETag this call answered before: 304 without a body while the answer is unchanged' };

/** The route's schema as the document publishes it (a copy: the route's own schema objects stay untouched). */
export function documentedRoute(schema: FastifySchema, route: RouteOptions): FastifySchema {
  const method = Array.isArray(route.method) ? route.method[0]! : route.method;
  const config = route.config;
  const adminRoute = route.url.startsWith('/api/admin/');
  const responses = { ...(schema.response as Record<string, Record<string, unknown>> | undefined) };
  if (config?.conditional && responses['200']) responses['304'] = NOT_MODIFIED;
  for (const [status, response] of Object.entries(responses)) {
    const headers = documentedHeaders(config, status, adminRoute);
    // a status text only where the schema gives no description of its own (x-response-description: not copied into the body schema)
    const text = typeof response.description === 'string' ? undefined : STATUS_TEXT[status];
    const all = { ...(response.headers as object | undefined), ...headers };
    responses[status] = { ...response, ...(text ? { 'x-response-description': text } : {}), ...(Object.keys(all).length > 0 ? { headers: all } : {}) };
  }
  const headers = config?.conditional ? addHeaderParameter(schema.headers, 'if-none-match', IF_NONE_MATCH) : schema.headers;
  // keyless operations say so (an empty requirement), rather than leaving a reader to guess
  const security = schema.security ?? (config?.scope === undefined ? [] : undefined);
  return { operationId: operationIdOf(method, route.url), ...schema, response: responses, ...(headers ? { headers } : {}), ...(security ? { security } : {}) };
}

const HEADER_DOCS: Record<string, HeaderDoc> = { ...RATE_HEADERS, ...LEDGER_HEADERS, ...RETRY_AFTER, ...ETAG };
const componentName = (header: string) => header.replace(/-/g, '');

type Responses = Record<string, { headers?: Record<string, unknown> }>;
type OpenApiObject = { paths?: Record<string, Record<string, { responses?: Responses }>>; components?: Record<string, unknown> };

/** Each response header is described once, in components.headers, and referenced (the document stays small). */
export function sharedResponseHeaders<T extends object>(document: T): T {
  const doc = document as OpenApiObject;
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const name of Object.keys(response.headers ?? {})) {
          if (HEADER_DOCS[name]) response.headers![name] = { $ref: `#/components/headers/${componentName(name)}` };
        }
      }
    }
  }
  const headers = Object.fromEntries(Object.entries(HEADER_DOCS).map(([name, { description, ...schema }]) => [componentName(name), { description, schema }]));
  doc.components = { ...doc.components, headers };
  return document;
}

function addHeaderParameter(headers: unknown, name: string, doc: object): object {
  const existing = (headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  return { ...existing, type: 'object', properties: { ...existing.properties, [name]: doc } };
}
