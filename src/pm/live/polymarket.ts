/** Polymarket (Gamma markets API): open markets by 24 h volume. */
import type { MarketState, VenueAdapter } from '../types.js';
import { categoryOf, coinsOf, getJson, jsonArray, lookupEach, LOOKUP_TIMEOUT_MS, ms, num, round1, type FetchLike } from './http.js';

export const POLYMARKET_URL = 'https://gamma-api.polymarket.com/markets?active=true&closed=false&limit=100&order=volume24hr&ascending=false';

/** One market by slug, open or closed (Gamma answers an array). */
export const polymarketMarketUrl = (slug: string) => `https://gamma-api.polymarket.com/markets?slug=${encodeURIComponent(slug)}`;

export function parsePolymarket(body: unknown, nowMs: number): MarketState[] {
  if (!Array.isArray(body)) throw new Error('polymarket: expected an array of markets');
  const out: MarketState[] = [];
  for (const raw of body as Record<string, unknown>[]) {
    if (raw === null || typeof raw !== 'object') continue; // one malformed row costs only itself
    const names = jsonArray(raw.outcomes).map(String);
    const prices = jsonArray(raw.outcomePrices).map((p) => num(p));
    const slug = typeof raw.slug === 'string' ? raw.slug : null;
    const title = typeof raw.question === 'string' ? raw.question : null;
    if (!slug || !title || names.length < 2 || prices.length !== names.length || prices.some((p) => p === null)) continue;
    const tokens = jsonArray(raw.clobTokenIds).map(String);
    const closed = raw.closed === true;
    const bestBid = num(raw.bestBid);
    const bestAsk = num(raw.bestAsk);
    const outcomes = names.map((name, i) => {
      const p = round1(prices[i]! * 100);
      // Gamma quotes the book of the first (Yes) token; the No leg mirrors it.
      const bid = i === 0 && bestBid !== null ? round1(bestBid * 100) : i === 1 && bestAsk !== null ? round1(100 - bestAsk * 100) : null;
      const ask = i === 0 && bestAsk !== null ? round1(bestAsk * 100) : i === 1 && bestBid !== null ? round1(100 - bestBid * 100) : null;
      return { externalMarketId: tokens[i] ?? `${raw.id}:${i}`, name, probability: p, bid: closed ? null : bid, ask: closed ? null : ask };
    });
    const endAt = ms(raw.endDate);
    const won = closed ? outcomes.findIndex((o) => o.probability >= 99.9) : -1;
    out.push({
      source: 'polymarket',
      slug,
      marketId: String(raw.conditionId ?? raw.id),
      title,
      description: typeof raw.description === 'string' ? raw.description.slice(0, 2000) : null,
      category: categoryOf(title, raw.category),
      kind: names.length === 2 ? 'binary' : 'multi',
      outcomes,
      volume: num(raw.volumeNum) ?? num(raw.volume) ?? 0,
      volume24h: num(raw.volume24hr) ?? 0,
      liquidity: num(raw.liquidityNum) ?? num(raw.liquidity) ?? 0,
      startAtMs: ms(raw.startDate),
      endAtMs: endAt,
      status: closed ? 'closed' : 'open',
      closedAtMs: closed ? (ms(raw.closedTime) ?? endAt ?? nowMs) : null,
      resolution:
        closed && won >= 0
          ? { state: 'resolved', winnerExternalMarketId: outcomes[won]!.externalMarketId, resolvedAtMs: ms(raw.closedTime) ?? nowMs, verified: ms(raw.closedTime) !== null, basis: 'final_probability' }
          : null,
      rules: typeof raw.description === 'string' ? raw.description : null,
      settlementSource: typeof raw.resolutionSource === 'string' && raw.resolutionSource ? raw.resolutionSource : null,
      coinIds: coinsOf(title),
      topics: [],
    });
  }
  return out;
}

export function polymarketAdapter(fetchImpl: FetchLike): VenueAdapter {
  return {
    source: 'polymarket',
    mode: 'live',
    minPollMs: 60_000,
    async fetch(nowMs) {
      return { markets: parsePolymarket(await getJson(fetchImpl, POLYMARKET_URL), nowMs), whales: [] };
    },
    lookup: (slugs, nowMs) => lookupEach(slugs, async (slug) => parsePolymarket(await getJson(fetchImpl, polymarketMarketUrl(slug), LOOKUP_TIMEOUT_MS), nowMs)),
  };
}
