/** Kalshi (trade API v2): open markets; prices in cents. */
import type { MarketState, VenueAdapter } from '../types.js';
import { categoryOf, coinsOf, getJson, lookupEach, LOOKUP_TIMEOUT_MS, ms, num, type FetchLike } from './http.js';
import { complementPoints } from '../../domain/pm/pricing.js';

export const KALSHI_URL = 'https://api.elections.kalshi.com/trade-api/v2/markets?status=open&limit=200';

/** One market by ticker (our slug is the ticker in lower case), open, closed or settled: `{market}`. */
export const kalshiMarketUrl = (slug: string) => `https://api.elections.kalshi.com/trade-api/v2/markets/${encodeURIComponent(slug.toUpperCase())}`;

export function parseKalshi(body: unknown, nowMs: number): MarketState[] {
  const markets = (body as { markets?: unknown })?.markets;
  if (!Array.isArray(markets)) throw new Error('kalshi: expected {markets: [...]}');
  const out: MarketState[] = [];
  for (const raw of markets as Record<string, unknown>[]) {
    if (raw === null || typeof raw !== 'object') continue; // one malformed row costs only itself
    const ticker = typeof raw.ticker === 'string' ? raw.ticker : null;
    const title = typeof raw.title === 'string' ? raw.title : null;
    if (!ticker || !title) continue;
    const yesBid = num(raw.yes_bid);
    const yesAsk = num(raw.yes_ask);
    const last = num(raw.last_price);
    const mid = yesBid !== null && yesAsk !== null && yesAsk > 0 ? (yesBid + yesAsk) / 2 : last;
    if (mid === null) continue;
    const status = String(raw.status ?? '');
    const open = status === 'active' || status === 'open';
    const result = String(raw.result ?? '');
    const subtitle = typeof raw.yes_sub_title === 'string' && raw.yes_sub_title ? ` (${raw.yes_sub_title})` : '';
    const slug = ticker.toLowerCase();
    const outcomes = [
      { externalMarketId: `${ticker}:yes`, name: 'Yes', probability: mid, bid: open ? yesBid : null, ask: open ? yesAsk : null },
      { externalMarketId: `${ticker}:no`, name: 'No', probability: complementPoints(mid), bid: open && yesAsk !== null ? complementPoints(yesAsk) : null, ask: open && yesBid !== null ? complementPoints(yesBid) : null },
    ];
    const closeAt = ms(raw.close_time);
    out.push({
      source: 'kalshi',
      slug,
      marketId: ticker,
      title: `${title}${subtitle}`,
      description: typeof raw.rules_primary === 'string' ? raw.rules_primary : null,
      category: categoryOf(title, raw.category),
      kind: 'binary',
      outcomes,
      volume: num(raw.volume) ?? 0,
      volume24h: num(raw.volume_24h) ?? 0,
      // Kalshi reports liquidity in cents.
      liquidity: (num(raw.liquidity) ?? 0) / 100,
      startAtMs: ms(raw.open_time),
      endAtMs: closeAt,
      status: open ? 'open' : 'closed',
      closedAtMs: open ? null : (closeAt ?? nowMs),
      resolution:
        result === 'yes' || result === 'no'
          ? { state: 'resolved', winnerExternalMarketId: `${ticker}:${result}`, resolvedAtMs: ms(raw.settlement_time) ?? closeAt ?? nowMs, verified: ms(raw.settlement_time) !== null, basis: 'source' }
          : result === 'void'
            ? { state: 'voided', winnerExternalMarketId: null, resolvedAtMs: closeAt ?? nowMs, verified: false, basis: 'source' }
            : null,
      rules: typeof raw.rules_primary === 'string' ? raw.rules_primary : null,
      settlementSource: null,
      coinIds: coinsOf(title),
      topics: typeof raw.event_ticker === 'string' ? [raw.event_ticker.toLowerCase()] : [],
    });
  }
  return out;
}

export function kalshiAdapter(fetchImpl: FetchLike): VenueAdapter {
  return {
    source: 'kalshi',
    mode: 'live',
    minPollMs: 60_000,
    async fetch(nowMs) {
      return { markets: parseKalshi(await getJson(fetchImpl, KALSHI_URL), nowMs), whales: [] };
    },
    lookup: (slugs, nowMs) =>
      lookupEach(slugs, async (slug) => parseKalshi({ markets: [((await getJson(fetchImpl, kalshiMarketUrl(slug), LOOKUP_TIMEOUT_MS)) as { market?: unknown })?.market] }, nowMs)),
  };
}
