/**
 * Typed client for the Paper Arena API: `createClient({ baseUrl, apiKey })` over openapi-fetch, with the request
 * and response types generated from the OpenAPI document (src/schema.d.ts; regenerate with `npm run generate`).
 *
 * - Every call returns openapi-fetch's `{ data, error, response }`; `error` is the typed envelope `{ error, message, … }`.
 *   `unwrap()` turns that into the data or a thrown `PaperArenaError` (status, code, message, field, Retry-After on 429).
 * - Trade writes (`TRADE_WRITE_PATHS`) get an `idempotencyKey` when the caller gives none, so the types make it optional.
 *   The key is generated once per call: the client's own retry of that call (a network failure or a 503 `contention_retry`)
 *   reuses it, so the server applies the write at most once. To retry a write across calls, pass your own key.
 */
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { paths } from './schema.js';

/** POST routes whose body carries an `idempotencyKey` (the API replays the first answer for a repeated key). */
export const TRADE_WRITE_PATHS = ['/api/agent/spot/order', '/api/agent/futures/open', '/api/agent/futures/close', '/api/agent/pm/open'] as const;
export type TradeWritePath = (typeof TRADE_WRITE_PATHS)[number];

type OptionalKey<Body> = Body extends { idempotencyKey: string } ? Omit<Body, 'idempotencyKey'> & { idempotencyKey?: string } : Body;
type LoosenPost<Op> = Op extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Omit<Op, 'requestBody'> & { requestBody: { content: { 'application/json': OptionalKey<Body> } } }
  : Op;
/** The API's paths with `idempotencyKey` optional on trade writes (the client fills it in). */
export type ClientPaths = {
  [P in keyof paths]: P extends TradeWritePath ? Omit<paths[P], 'post'> & { post: LoosenPost<paths[P]['post']> } : paths[P];
};

/** The error envelope every failure carries (`{error, message}` plus what applies). */
export type ErrorEnvelope = paths['/api/agent/me']['get']['responses'][401]['content']['application/json'];

export class PaperArenaError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: string | undefined,
    /** 429 (and 503 when the server says so): seconds to wait, from `Retry-After` or the body. */
    readonly retryAfterSeconds: number | undefined,
    readonly body: ErrorEnvelope | undefined,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'PaperArenaError';
  }
}

export interface ClientOptions {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** `sk_live_…`; omit for the keyless surfaces (Arena, prediction-market data). */
  apiKey?: string;
  /** custom fetch (tests, proxies); defaults to the global fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** Makes idempotency keys (default: crypto.randomUUID). */
  newIdempotencyKey?: () => string;
}

// JSON answers only: a route that can also stream (the decisions dataset as ndjson) is typed by its JSON form.
export type PaperArenaClient = Client<ClientPaths, 'application/json'>;

const isTradeWrite = (method: string, schemaPath: string) => method === 'POST' && (TRADE_WRITE_PATHS as readonly string[]).includes(schemaPath);

/** Adds an idempotency key to a trade write that has none (the body is JSON). */
function idempotencyMiddleware(newKey: () => string): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      if (!isTradeWrite(request.method, schemaPath)) return undefined;
      const body = (await request.clone().json()) as Record<string, unknown>;
      if (typeof body.idempotencyKey === 'string') return undefined;
      return new Request(request, { body: JSON.stringify({ ...body, idempotencyKey: newKey() }) });
    },
  };
}

/**
 * One more attempt, with the very same request (so the same idempotency key), after a network
 * failure or a 503. `basePath` is the baseUrl's own path (a service behind a proxy at /paper):
 * the route is what follows it.
 */
function retryingFetch(base: (request: Request) => Promise<Response>, basePath: string) {
  const routeOf = (request: Request) => {
    const path = new URL(request.url).pathname;
    return path.startsWith(basePath) ? path.slice(basePath.length) : path;
  };
  return async (request: Request): Promise<Response> => {
    const spare = request.clone();
    try {
      const response = await base(request);
      if (response.status !== 503 || !isTradeWrite(request.method, routeOf(request))) return response;
      await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(5, retryAfterOf(response) ?? 1)));
    } catch (error) {
      if (!isTradeWrite(request.method, routeOf(request))) throw error;
    }
    return base(spare);
  };
}

const retryAfterOf = (response: Response): number | undefined => {
  const raw = response.headers.get('retry-after');
  const seconds = raw === null ? Number.NaN : Number(raw);
  return Number.isFinite(seconds) ? seconds : undefined;
};

export function createClient(options: ClientOptions): PaperArenaClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const client = createFetchClient<ClientPaths, 'application/json'>({
    baseUrl,
    fetch: retryingFetch(baseFetch, new URL(baseUrl).pathname.replace(/\/+$/, '')),
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
  });
  client.use(idempotencyMiddleware(options.newIdempotencyKey ?? (() => crypto.randomUUID())));
  return client;
}

/** The data of a successful call, or a thrown PaperArenaError built from the error envelope and headers. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  const body = (typeof result.error === 'object' && result.error !== null ? result.error : undefined) as ErrorEnvelope | undefined;
  const retryAfter = retryAfterOf(result.response) ?? body?.retryAfterSeconds;
  throw new PaperArenaError(
    result.response.status,
    body?.error ?? 'http_error',
    body?.message ?? result.response.statusText,
    body?.field,
    retryAfter,
    body,
  );
}
