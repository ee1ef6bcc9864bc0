/** Canonical cross-venue events (supplement §4 candidate extension): clusters, members, orientation, consensus. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { anchorOf, canonicalConsensus, canonicalIdentity, canonicalLineage, canonicalSlug, canonicalUuid } from '../../../pm/canonical.js';
import { keyOf, pmReadModel, type PmSnapshot } from '../../../pm/read-model.js';
import type { OutcomeQuote } from '../../../pm/types.js';
import { venueById } from '../../../pm/venues.js';
import type { PmMarketRow } from '../../../storage/pm-repo.js';
import type { AppContext } from '../../context.js';
import { invalidRequest, notFound } from '../../errors.js';
import { ResponseCache, TAG, cachedResponder, ok } from './common.js';
import { CanonicalEvent, CanonicalListResponse } from '../../responses/pm-data.js';

function clusterView(snap: PmSnapshot, key: string, members: PmMarketRow[]): Record<string, unknown> {
  const anchor = anchorOf(members);
  return {
    // Reference identity keys (B1) beside ours.
    ...canonicalIdentity(key, members),
    canonicalEventId: key,
    title: anchor.title,
    kind: anchor.kind,
    status: members.some((m) => m.status === 'open') ? 'open' : 'closed',
    venueCount: new Set(members.map((m) => m.source)).size,
    referenceProbability: snap.refs.get(keyOf(anchor)) ?? null,
    members: members
      .map((m) => ({
        source: m.source,
        sourceName: venueById(m.source)?.name ?? m.source,
        slug: m.slug,
        title: m.title,
        status: m.status,
        // Reference member names (B2) beside ours.
        eventSlug: m.slug,
        eventTitle: m.title,
        eventStatus: m.status,
        eventId: m.eventId,
        orientation: m.orientation,
        confidence: m.matchConfidence,
        basis: m.matchBasis,
        isAnchor: m === anchor,
        outcomes: (m.outcomes as OutcomeQuote[]).map((o) => ({ name: o.name, probability: o.probability })),
        liquidity: m.liquidity,
      }))
      .sort((a, b) => Number(b.isAnchor) - Number(a.isAnchor) || a.source.localeCompare(b.source)),
    orientationRule: "Relative to the anchor: read 'flipped' as 100 − p; never treat 'unknown' as 'same'.",
  };
}

/** Finds a cluster by our key (`pmc_…`), the reference uuid or the reference slug. */
function findCluster(snap: PmSnapshot, raw: string): [string, PmMarketRow[]] | null {
  const direct = snap.clusters.get(raw);
  if (direct) return [raw, direct];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(raw) ? raw : null;
  const prefix = uuid ? null : /-([0-9a-f]{8})$/.exec(raw)?.[1];
  if (!uuid && !prefix) return null;
  for (const [key, members] of snap.clusters) {
    const id = canonicalUuid(key);
    if (uuid ? id === uuid : id.startsWith(prefix!) && canonicalSlug(anchorOf(members).title, id) === raw) return [key, members];
  }
  return null;
}

/** Canonical views change with the PM snapshot; a built answer is reused this long (its max-age). */
const CANONICAL_TTL_MS = 5_000;

export function pmCanonicalRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const cached = cachedResponder(new ResponseCache(), () => ctx.clock.now());
  return async (app) => {
    app.get(
      '/api/prediction-markets/canonical',
      {
        config: { publicRate: true, conditional: true },
        schema: {
          tags: [TAG],
          summary: 'Canonical cross-venue events (cursor-paged): members, orientation, consensus',
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
            cursor: Type.Optional(Type.String({ maxLength: 40, description: 'previous nextCursor (opaque) or pagination.nextCursor (integer)' })),
          }),
          response: ok(CanonicalListResponse),
        },
      },
      async (request, reply) => {
        let offset = 0;
        const cursor = request.query.cursor;
        if (cursor !== undefined) {
          // The reference's integer cursor (pagination.nextCursor) is a row offset; ours is an opaque string.
          const decoded = /^[1-9]\d{0,6}$/.test(cursor) ? `o:${cursor}` : Buffer.from(cursor, 'base64url').toString('utf8');
          if (!/^o:\d{1,7}$/.test(decoded)) throw invalidRequest('query.cursor', 'cursor is not one this API returned');
          offset = Number(decoded.slice(2));
        }
        const limit = request.query.limit;
        return cached(reply, `list:${offset}:${limit}`, CANONICAL_TTL_MS, async () => {
          const snap = await pmReadModel(ctx.database, ctx.clock).snapshot();
          const clusters = [...snap.clusters.entries()].sort(
            ([ka, a], [kb, b]) =>
              Number(b.some((m) => m.status === 'open')) - Number(a.some((m) => m.status === 'open')) || new Set(b.map((m) => m.source)).size - new Set(a.map((m) => m.source)).size || ka.localeCompare(kb),
          );
          const page = clusters.slice(offset, offset + limit);
          const more = offset + page.length < clusters.length;
          const next = more ? Buffer.from(`o:${offset + page.length}`).toString('base64url') : null;
          const body = {
            data: page.map(([k, m]) => clusterView(snap, k, m)),
            pagination: { limit, nextCursor: more ? offset + page.length : null },
            nextCursor: next,
          };
          return { body, sources: page.flatMap(([, m]) => m.map((x) => x.source)) };
        });
      },
    );

    app.get(
      '/api/prediction-markets/canonical/:key',
      {
        config: { publicRate: true, conditional: true },
        schema: {
          tags: [TAG],
          summary: 'One canonical cross-venue event (key: pmc_… id, reference uuid or slug)',
          params: Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: ok(CanonicalEvent),
        },
      },
      async (request, reply) =>
        cached(reply, `event:${request.params.key}`, CANONICAL_TTL_MS, async () => {
          const snap = await pmReadModel(ctx.database, ctx.clock).snapshot();
          const found = findCluster(snap, request.params.key);
          if (!found) throw notFound('event_not_found', `no canonical event ${request.params.key}`);
          const [key, members] = found;
          const body = {
            ...clusterView(snap, key, members),
            // Reference B2 keys beside ours: no merges exist here, so mergedInto is always null.
            canonical: canonicalIdentity(key, members),
            mergedInto: null,
            consensus: canonicalConsensus(members, snap.refs.get(keyOf(anchorOf(members))) ?? null),
            consensusHistory: [],
            lineage: canonicalLineage(members),
          };
          return { body, sources: members.map((m) => m.source) };
        }),
    );
  };
}
