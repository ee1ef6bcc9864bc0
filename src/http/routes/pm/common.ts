import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { FIAT_CURRENCIES } from '../../../marketdata/sim/fiat.js';
import type { Money } from '../../../pm/views.js';
import { venueById } from '../../../pm/venues.js';
import { invalidRequest, notFound } from '../../errors.js';
import { CodedBody, sendCoded } from '../../content-coding.js';
import { ErrorBody, FIAT_DESCRIPTION } from '../../schemas.js';

export const TAG = 'prediction-markets';
export const publicErrors = { 400: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** A keyless read's responses: its 200 schema and the public errors. */
export const ok = <T extends TSchema>(schema: T) => ({ 200: schema, ...publicErrors });
export const FiatQuery = Type.Optional(Type.String({ description: `fiat currency for money fields: ${FIAT_DESCRIPTION}`, default: 'USD' }));

/** Money fields convert at the simulated fiat base rate (units per USD). */
export function fiatOf(raw: string | undefined): { code: string; fx: Money } {
  const code = (raw ?? 'USD').trim().toUpperCase();
  const currency = FIAT_CURRENCIES.find((c) => c.code === code);
  if (!currency) throw invalidRequest('query.fiat', `fiat must be one of ${FIAT_CURRENCIES.map((c) => c.code).join(', ')}`);
  return { code, fx: { rate: currency.baseRate } };
}

export function venueQuery(raw: string | undefined, field: string, required = false): string | null {
  if (raw === undefined || raw === '' || raw === 'all') {
    if (required) throw invalidRequest(field, `${field} is required (a venue id)`);
    return null;
  }
  if (!venueById(raw)) throw invalidRequest(field, `${field} must be a known venue id`);
  return raw;
}

export function venuePath(raw: string): string {
  if (!venueById(raw)) throw notFound('source_not_found', `unknown source ${raw}`);
  return raw;
}

/** A serialized public response as cached: its bytes, ETag and header values, all made once. */
export interface CachedResponse {
  body: CodedBody;
  sources: string;
  cacheControl: string;
  attribution: string;
}

const attributionOf = (sources: string) => (sources ? `venue data: ${sources}; compiled by Paper Arena` : 'Paper Arena');

function cachedResponse(body: string, sources: string, maxAgeSeconds: number): CachedResponse {
  const bytes = Buffer.from(body);
  return { body: CodedBody.of(bytes), sources, cacheControl: `public, max-age=${maxAgeSeconds}`, attribution: attributionOf(sources) };
}

/** What a cached public response is made from. */
export type BuildResponse = () => Promise<{ body: unknown; sources: Iterable<string> }>;

/**
 * A short-lived cache of serialized public responses, keyed by route and normalized query.
 * A missing entry is built once however many requests ask for it meanwhile: when an entry
 * expires under load, every connection waiting on it would otherwise query and serialize it.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse & { expiresAt: number }>();
  private readonly building = new Map<string, Promise<CachedResponse>>();
  constructor(private readonly maxEntries = 2000) {}

  get(key: string, nowMs: number): CachedResponse | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.expiresAt <= nowMs || e.expiresAt - nowMs > 3_600_000) {
      this.entries.delete(key);
      return null;
    }
    return e;
  }

  /** The entry for `key` built by `build` (or by the build already running for it), kept for `ttlMs`. */
  build(key: string, nowMs: number, ttlMs: number, build: BuildResponse): Promise<CachedResponse> {
    let pending = this.building.get(key);
    if (!pending) {
      pending = build()
        .then(({ body, sources }) => this.set(key, JSON.stringify(body), sourcesHeader(sources), nowMs, ttlMs))
        .finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  /** Caches the body with its ETag (hashed once here) and header values; returns the entry. */
  private set(key: string, body: string, sources: string, nowMs: number, ttlMs: number): CachedResponse {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const entry = { ...cachedResponse(body, sources, Math.round(ttlMs / 1000)), expiresAt: nowMs + ttlMs };
    this.entries.set(key, entry);
    return entry;
  }
}

/** Sends a cached public body (compressed when the client accepts it) with its ETag; 304 when If-None-Match names it. */
function sendEntry(reply: FastifyReply, entry: CachedResponse): FastifyReply {
  reply.header('Cache-Control', entry.cacheControl).header('X-Data-Attribution', entry.attribution);
  return sendCoded(reply, entry.body, 'application/json; charset=utf-8');
}

export function sourcesHeader(ids: Iterable<string>): string {
  return [...new Set(ids)].map((id) => venueById(id)?.name ?? id).sort().join(', ');
}

/** A public response served from `cache` for `ttlMs`, else built, serialized once and remembered. */
export function cachedResponder(cache: ResponseCache, nowMs: () => number) {
  return async (reply: FastifyReply, key: string, ttlMs: number, build: BuildResponse): Promise<FastifyReply> => {
    const now = nowMs();
    const hit = cache.get(key, now);
    return sendEntry(reply, hit ?? (await cache.build(key, now, ttlMs, build)));
  };
}
