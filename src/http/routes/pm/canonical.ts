/** Canonical cross-venue events (supplement §4 candidate extension): clusters, members, orientation, consensus. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { keyOf, pmReadModel, type PmSnapshot } from '../../../pm/read-model.js';
import type { OutcomeQuote } from '../../../pm/types.js';
import { venueById } from '../../../pm/venues.js';
import type { PmMarketRow } from '../../../storage/pm-repo.js';
import type { AppContext } from '../../context.js';
import { invalidRequest, notFound } from '../../errors.js';
import { TAG, ok, sendCached, sourcesHeader } from './common.js';
import { CanonicalEvent, CanonicalListResponse } from '../../responses/pm-data.js';

function clusterView(snap: PmSnapshot, key: string, members: PmMarketRow[]): Record<string, unknown> {
  const anchor = members.find((m) => m.matchBasis === 'anchor') ?? members[0]!;
  return {
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

export function pmCanonicalRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/prediction-markets/canonical',
      {
        config: { publicRate: true },
        schema: {
          tags: [TAG],
          summary: 'Canonical cross-venue events (cursor-paged): members, orientation, consensus',
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            cursor: Type.Optional(Type.String({ maxLength: 40 })),
          }),
          response: ok(CanonicalListResponse),
        },
      },
      async (request, reply) => {
        let offset = 0;
        if (request.query.cursor !== undefined) {
          const decoded = Buffer.from(request.query.cursor, 'base64url').toString('utf8');
          if (!/^o:\d{1,7}$/.test(decoded)) throw invalidRequest('query.cursor', 'cursor is not one this API returned');
          offset = Number(decoded.slice(2));
        }
        const snap = await pmReadModel(ctx.database, ctx.clock).snapshot();
        const clusters = [...snap.clusters.entries()].sort(
          ([ka, a], [kb, b]) =>
            Number(b.some((m) => m.status === 'open')) - Number(a.some((m) => m.status === 'open')) || new Set(b.map((m) => m.source)).size - new Set(a.map((m) => m.source)).size || ka.localeCompare(kb),
        );
        const page = clusters.slice(offset, offset + request.query.limit);
        const next = offset + page.length < clusters.length ? Buffer.from(`o:${offset + page.length}`).toString('base64url') : null;
        const body = JSON.stringify({ data: page.map(([k, m]) => clusterView(snap, k, m)), nextCursor: next });
        return sendCached(reply, body, sourcesHeader(page.flatMap(([, m]) => m.map((x) => x.source))), 5);
      },
    );

    app.get(
      '/api/prediction-markets/canonical/:key',
      {
        config: { publicRate: true },
        schema: { tags: [TAG], summary: 'One canonical cross-venue event', params: Type.Object({ key: Type.String({ maxLength: 40 }) }), response: ok(CanonicalEvent) },
      },
      async (request, reply) => {
        const snap = await pmReadModel(ctx.database, ctx.clock).snapshot();
        const members = snap.clusters.get(request.params.key);
        if (!members) throw notFound('event_not_found', `no canonical event ${request.params.key}`);
        return sendCached(reply, JSON.stringify(clusterView(snap, request.params.key, members)), sourcesHeader(members.map((m) => m.source)), 5);
      },
    );
  };
}
