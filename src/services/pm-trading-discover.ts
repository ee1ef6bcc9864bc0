/** `GET /api/agent/pm/discover` (supplement 1.8): open, quote-ready binary markets on trading venues. */
import { buildObservation } from '../domain/observation.js';
import { isOpenAt, isPinned, pmQuality, qualityGateReasons, shapeBlockReasons } from '../domain/pm/gates.js';
import { PM_MIN_STAKE_MUSD } from '../domain/pm/pricing.js';
import type { AppContext } from '../http/context.js';
import { decisionSupport } from '../pm/decision-support.js';
import { pmReadModel } from '../pm/read-model.js';
import { venueMarketOf } from '../pm/api.js';
import { VENUES } from '../pm/venues.js';
import { venueHealth, type PmMarketRow } from '../storage/pm-repo.js';

export const DISCOVER_SORTS = ['best', 'volume24h_desc', 'priceChange24h_desc', 'priceChange24h_asc', 'endDate_desc', 'trending'] as const;
const TRADING = VENUES.filter((v) => v.supportsTrading).map((v) => v.id);
/** A venue is `stale` for discovery when its last successful ingest is older than this. */
const SOURCE_STALE_MS = 15 * 60_000;

/** Could a paper position be opened on this market now, shape-wise (a trading venue, binary, open, not settled)? Quality gates aside. */
export function plausiblyTradeable(r: PmMarketRow, nowMs: number): boolean {
  return TRADING.includes(r.source) && !r.resolutionState && r.kind === 'binary' && isOpenAt({ status: r.status as 'open' | 'closed', endAt: r.endAt?.toISOString() ?? null }, nowMs);
}

export async function discoverPm(
  ctx: AppContext,
  query: { limit?: number; offset?: number; q?: string; source?: 'all' | 'kalshi' | 'polymarket'; sort?: (typeof DISCOVER_SORTS)[number] },
) {
  const nowMs = ctx.clock.now();
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const source = query.source ?? 'all';
  const sort = query.sort ?? 'best';
  const q = query.q?.trim().toLowerCase() || null;
  const snap = await pmReadModel(ctx.database, ctx.clock).snapshot();
  const slugOf = (coinId: string) => ctx.market.coin(coinId)?.slug ?? null;
  const items = snap.rows
    .filter((r) => (source === 'all' || r.source === source) && plausiblyTradeable(r, nowMs))
    // the trading view quote and open gate on (src/pm/api.ts): discover shows what they would decide
    .map((r) => ({ r, m: venueMarketOf(r, nowMs) }))
    .map(({ r, m }) => {
      const outcomes = m.outcomes;
      const quoteReady = outcomes.some((o) => o.probability > 0 && o.probability < 100);
      const relatedCoins = [...new Set((r.coinIds as string[]).map(slugOf).filter((s): s is string => s !== null))].sort();
      const quality = pmQuality(m);
      const reasons = [...shapeBlockReasons(m, null, nowMs), ...qualityGateReasons(quality, nowMs)];
      const spread = m.spread;
      const leader = Math.max(...outcomes.map((o) => o.probability));
      const ds = decisionSupport({ spreadPoints: spread, liquidity: r.liquidity, volume24h: r.volume24h, leaderProbability: leader, endAtMs: r.endAt?.getTime() ?? null, nowMs });
      const eligible = reasons.length === 0;
      return {
        quoteReady,
        r,
        item: {
          source: r.source,
          slug: r.slug,
          title: r.title,
          endDate: r.endAt?.toISOString() ?? null,
          relatedCoins,
          freshness: m.freshness,
          pinned: isPinned(m),
          eligible,
          eligibleBlockReasons: reasons,
          ...(quality ? { quality } : {}),
          outcomes: outcomes.map((o) => ({
            externalMarketId: o.externalMarketId,
            name: o.name,
            probability: o.probability,
            tokenId: null,
            eligible: eligible && o.probability > 0 && o.probability < 100,
          })),
          volume24h: r.volume24h,
          liquidity: r.liquidity,
          spread,
          decisionSupport: ds,
          resolution: r.rules || r.settlementSource
            ? {
                published: r.rules !== null,
                rules: r.rules ? (r.rules.length > 700 ? `${r.rules.slice(0, 699)}…` : r.rules) : null,
                rulesTruncated: (r.rules?.length ?? 0) > 700,
                settlementSource: r.settlementSource,
                settlementSources: r.settlementSource ? [{ name: r.settlementSource, url: null }] : null,
              }
            : null,
          quoteHint: { endpoint: 'POST /api/agent/pm/quote', source: r.source, slug: r.slug, stakeMusdMin: PM_MIN_STAKE_MUSD, outcomeExternalMarketIdField: 'outcomes[].externalMarketId' },
        },
        text: [r.title, ...outcomes.map((o) => o.name), ...(r.topics as string[]), ...relatedCoins].join(' ').toLowerCase(),
      };
    })
    .filter((x) => x.quoteReady && (q === null || x.text.includes(q)));
  const key = (x: (typeof items)[number]): number => {
    switch (sort) {
      case 'volume24h_desc':
      case 'trending':
        return -x.r.volume24h;
      case 'priceChange24h_desc':
        return -(x.r.priceChange24h ?? -Infinity);
      case 'priceChange24h_asc':
        return x.r.priceChange24h ?? Infinity;
      case 'endDate_desc':
        return -(x.r.endAt?.getTime() ?? -Infinity);
      default:
        return -(x.item.decisionSupport.qualityScore * 1e12 + x.r.liquidity);
    }
  };
  // Openable first, effectively decided (pinned) last, then the requested order.
  const tier = (x: (typeof items)[number]) => (x.item.pinned ? 2 : x.item.eligible ? 0 : 1);
  items.sort((a, b) => tier(a) - tier(b) || key(a) - key(b) || a.r.source.localeCompare(b.r.source) || a.r.slug.localeCompare(b.r.slug));
  const page = items.slice(offset, offset + limit).map((x) => x.item);
  const health = await venueHealth(ctx.database.db);
  const sources = source === 'all' ? TRADING : [source];
  const sourceHealth = sources.map((s) => {
    const h = health.find((x) => x.source === s);
    const last = h?.lastSuccessAt ?? null;
    return {
      slug: s,
      lastIngestAt: last?.toISOString() ?? null,
      ingestAgeSeconds: last ? Math.max(0, Math.round((nowMs - last.getTime()) / 1000)) : null,
      status: last === null ? 'never_ingested' : nowMs - last.getTime() > SOURCE_STALE_MS ? 'stale' : 'fresh',
    };
  });
  return {
    data: page,
    pagination: { limit, offset, hasMore: offset + limit < items.length },
    meta: { source, sources, sourceHealth, sort, q: query.q ?? null, note: 'open, quote-ready binary markets on venues that support mock trading; openable first, pinned last' },
    observation: buildObservation({
      endpoint: 'GET /api/agent/pm/discover',
      source: ctx.config.marketData?.kind === 'live' ? 'live:pm' : 'sim',
      observedAtMs: nowMs,
      sourceAsOfMs: snap.builtAtMs,
      freshness: null,
      inputs: { limit, offset, q: query.q ?? null, source, sort },
      dataset: { table: 'pm_markets', version: snap.version },
      rowCount: page.length,
    }),
  };
}
