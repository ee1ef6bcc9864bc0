import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { FIAT_CURRENCIES } from '../../../marketdata/sim/fiat.js';
import type { Money } from '../../../pm/views.js';
import { venueById } from '../../../pm/venues.js';
import { invalidRequest, notFound } from '../../errors.js';
import { answerNotModified, strongEtag } from '../../hot-responses.js';
import { ErrorBody } from '../../schemas.js';

export const TAG = 'prediction-markets';
export const publicErrors = { 400: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** A keyless read's responses: its 200 schema and the public errors. */
export const ok = <T extends TSchema>(schema: T) => ({ 200: schema, ...publicErrors });
export const FiatQuery = Type.Optional(Type.String({ description: 'fiat currency for money fields (default USD)', default: 'USD' }));

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
  body: Buffer;
  etag: string;
  sources: string;
  cacheControl: string;
  attribution: string;
}

const attributionOf = (sources: string) => (sources ? `venue data: ${sources}; compiled by Paper Arena` : 'Paper Arena');

function cachedResponse(body: string | Buffer, sources: string, maxAgeSeconds: number, etag = strongEtag(body)): CachedResponse {
  return { body: typeof body === 'string' ? Buffer.from(body) : body, etag, sources, cacheControl: `public, max-age=${maxAgeSeconds}`, attribution: attributionOf(sources) };
}

/** A short-lived cache of serialized public responses, keyed by route and normalized query. */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse & { expiresAt: number }>();
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

  /** Caches the body with its ETag (hashed once here) and header values; returns the entry. */
  set(key: string, body: string, sources: string, nowMs: number, ttlMs: number): CachedResponse {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const entry = { ...cachedResponse(body, sources, Math.round(ttlMs / 1000)), expiresAt: nowMs + ttlMs };
    this.entries.set(key, entry);
    return entry;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Sends a cached public body with its ETag; 304 without a body when If-None-Match names it. */
function sendEntry(reply: FastifyReply, entry: CachedResponse): FastifyReply {
  reply.header('Cache-Control', entry.cacheControl).header('X-Data-Attribution', entry.attribution);
  if (answerNotModified(reply.request, reply, entry.etag)) return reply;
  return reply.type('application/json; charset=utf-8').send(entry.body);
}

/** Sends a serialized public body with its ETag; 304 without a body when If-None-Match names it. */
export function sendCached(reply: FastifyReply, body: string, sources: string, maxAgeSeconds: number, etag = strongEtag(body)): FastifyReply {
  return sendEntry(reply, cachedResponse(body, sources, maxAgeSeconds, etag));
}

export function sourcesHeader(ids: Iterable<string>): string {
  return [...new Set(ids)].map((id) => venueById(id)?.name ?? id).sort().join(', ');
}

/** A public response served from `cache` for `ttlMs`, else built, serialized once and remembered. */
export function cachedResponder(cache: ResponseCache, nowMs: () => number) {
  return async (
    reply: FastifyReply,
    key: string,
    ttlMs: number,
    build: () => Promise<{ body: unknown; sources: Iterable<string> }>,
  ): Promise<FastifyReply> => {
    const now = nowMs();
    const hit = cache.get(key, now);
    if (hit) return sendEntry(reply, hit);
    const { body, sources } = await build();
    return sendEntry(reply, cache.set(key, JSON.stringify(body), sourcesHeader(sources), now, ttlMs));
  };
}
