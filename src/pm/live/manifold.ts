/** Manifold (public API v0): open binary markets by liquidity; play money (no whale feed). */
import type { MarketState, VenueAdapter } from '../types.js';
import { categoryOf, coinsOf, getJson, lookupEach, LOOKUP_TIMEOUT_MS, ms, num, round1, type FetchLike } from './http.js';

export const MANIFOLD_URL = 'https://api.manifold.markets/v0/search-markets?term=&filter=open&sort=liquidity&contractType=BINARY&limit=100';

/** One market by slug, open or resolved (a single market object). */
export const manifoldMarketUrl = (slug: string) => `https://api.manifold.markets/v0/slug/${encodeURIComponent(slug)}`;

export function parseManifold(body: unknown, nowMs: number): MarketState[] {
  if (!Array.isArray(body)) throw new Error('manifold: expected an array of markets');
  const out: MarketState[] = [];
  for (const raw of body as Record<string, unknown>[]) {
    if (raw === null || typeof raw !== 'object') continue; // one malformed row costs only itself
    if (raw.outcomeType !== 'BINARY') continue;
    const p = num(raw.probability);
    const slug = typeof raw.slug === 'string' ? raw.slug : null;
    const title = typeof raw.question === 'string' ? raw.question : null;
    if (p === null || !slug || !title) continue;
    const id = String(raw.id);
    const resolved = raw.isResolved === true;
    const closeAt = ms(raw.closeTime);
    const res = String(raw.resolution ?? '');
    const yes = round1(p * 100);
    out.push({
      source: 'manifold',
      slug,
      marketId: id,
      title,
      description: null,
      category: categoryOf(title),
      kind: 'binary',
      outcomes: [
        { externalMarketId: `${id}:yes`, name: 'Yes', probability: yes, bid: null, ask: null },
        { externalMarketId: `${id}:no`, name: 'No', probability: round1(100 - yes), bid: null, ask: null },
      ],
      volume: num(raw.volume) ?? 0,
      volume24h: num(raw.volume24Hours) ?? 0,
      liquidity: num(raw.totalLiquidity) ?? 0,
      startAtMs: ms(raw.createdTime),
      endAtMs: closeAt,
      status: resolved || (closeAt !== null && closeAt <= nowMs) ? 'closed' : 'open',
      closedAtMs: resolved || (closeAt !== null && closeAt <= nowMs) ? (closeAt ?? nowMs) : null,
      resolution: resolved
        ? res === 'YES' || res === 'NO'
          ? { state: 'resolved', winnerExternalMarketId: `${id}:${res.toLowerCase()}`, resolvedAtMs: ms(raw.resolutionTime) ?? nowMs, verified: raw.resolutionTime !== undefined, basis: 'source' }
          : res === 'CANCEL'
            ? { state: 'voided', winnerExternalMarketId: null, resolvedAtMs: ms(raw.resolutionTime) ?? nowMs, verified: raw.resolutionTime !== undefined, basis: 'source' }
            : null
        : null,
      rules: null,
      settlementSource: null,
      coinIds: coinsOf(title),
      topics: [],
    });
  }
  return out;
}

export function manifoldAdapter(fetchImpl: FetchLike): VenueAdapter {
  return {
    source: 'manifold',
    mode: 'live',
    minPollMs: 60_000,
    async fetch(nowMs) {
      return { markets: parseManifold(await getJson(fetchImpl, MANIFOLD_URL), nowMs), whales: [] };
    },
    lookup: (slugs, nowMs) => lookupEach(slugs, async (slug) => parseManifold([await getJson(fetchImpl, manifoldMarketUrl(slug), LOOKUP_TIMEOUT_MS)], nowMs)),
  };
}
