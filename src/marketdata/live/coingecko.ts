/**
 * CoinGecko's public API (https://api.coingecko.com/api/v3): spot figures from
 * /coins/markets, history from /coins/{id}/market_chart, fiat rates from /exchange_rates.
 * Responses are checked field by field; a row that does not fit is skipped, not trusted.
 */
import type { PriceSample } from '../../domain/candles.js';
import type { Coin } from '../coins.js';
import { FIAT_CODES } from '../sim/fiat.js';
import { getJson, type HttpOptions } from './http-json.js';
import type { QuoteInput } from './sample-market.js';

export const COINGECKO_BASE_URL = 'https://api.coingecko.com/api/v3';
/** /coins/markets answers at most 250 rows a page. */
export const MARKETS_PAGE_SIZE = 250;

export interface CoinGeckoMarketRow {
  id: string;
  symbol: string;
  name: string;
  marketCapRank: number | null;
  quote: QuoteInput;
  lastUpdatedMs: number | null;
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** Rows of a /coins/markets answer (with price_change_percentage=1h,24h,7d). */
export function parseMarkets(json: unknown): CoinGeckoMarketRow[] {
  if (!Array.isArray(json)) throw new TypeError('coins/markets: expected an array');
  const rows: CoinGeckoMarketRow[] = [];
  for (const raw of json) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    const price = num(r.current_price);
    if (typeof r.id !== 'string' || typeof r.symbol !== 'string' || typeof r.name !== 'string' || price === null || price <= 0) continue;
    const updated = typeof r.last_updated === 'string' ? Date.parse(r.last_updated) : Number.NaN;
    rows.push({
      id: r.id,
      symbol: r.symbol,
      name: r.name,
      marketCapRank: num(r.market_cap_rank),
      lastUpdatedMs: Number.isFinite(updated) ? updated : null,
      quote: {
        priceUsd: price,
        volume24hUsd: num(r.total_volume),
        // CoinGecko reports 0 when it does not know a market cap.
        marketCapUsd: num(r.market_cap) || null,
        change1h: num(r.price_change_percentage_1h_in_currency),
        change24h: num(r.price_change_percentage_24h_in_currency) ?? num(r.price_change_percentage_24h),
        change7d: num(r.price_change_percentage_7d_in_currency),
      },
    });
  }
  return rows;
}

/**
 * History samples from /coins/{id}/market_chart: `prices` and `total_volumes` are
 * [unix ms, value] pairs (5-minute points for 1 day, hourly up to 90 days).
 */
export function parseMarketChart(json: unknown): PriceSample[] {
  const o = json as Record<string, unknown> | null;
  if (typeof o !== 'object' || o === null || !Array.isArray(o.prices)) throw new TypeError('market_chart: expected {prices: [[ms, price]]}');
  const volumes = new Map<number, number>();
  if (Array.isArray(o.total_volumes)) {
    for (const pair of o.total_volumes as unknown[]) {
      if (Array.isArray(pair) && num(pair[0]) !== null && num(pair[1]) !== null) volumes.set(pair[0] as number, pair[1] as number);
    }
  }
  const samples: PriceSample[] = [];
  for (const pair of o.prices as unknown[]) {
    if (!Array.isArray(pair)) continue;
    const ms = num(pair[0]);
    const price = num(pair[1]);
    if (ms === null || price === null || price <= 0) continue;
    samples.push({ t: Math.floor(ms / 1000), price, volume24hUsd: volumes.get(ms) ?? 0 });
  }
  return samples;
}

/** Fiat units per USD from /exchange_rates (its rates are per 1 BTC). */
export function parseExchangeRates(json: unknown): Record<string, number> {
  const rates = (json as { rates?: Record<string, { value?: unknown }> } | null)?.rates;
  const usd = num(rates?.usd?.value);
  if (!rates || usd === null || usd <= 0) throw new TypeError('exchange_rates: expected rates.usd.value');
  const out: Record<string, number> = {};
  for (const code of FIAT_CODES) {
    const value = num(rates[code.toLowerCase()]?.value);
    if (value !== null && value > 0) out[code] = value / usd;
  }
  return out;
}

/**
 * Our coinId for each CoinGecko id: the same slug first (bitcoin = bitcoin), then the
 * same symbol and name (CoinMarketCap's `bnb` is CoinGecko's `binancecoin`), the
 * best-ranked CoinGecko row winning a tie. Coins left unmatched have no live price.
 */
export function mapCoinGeckoIds(coins: readonly Coin[], rows: readonly CoinGeckoMarketRow[]): Map<string, string> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ranked = [...rows].sort((a, b) => (a.marketCapRank ?? Number.MAX_SAFE_INTEGER) - (b.marketCapRank ?? Number.MAX_SAFE_INTEGER));
  const geckoToCoin = new Map<string, string>();
  const pending: Coin[] = [];
  for (const coin of coins) {
    if (byId.has(coin.slug) && !geckoToCoin.has(coin.slug)) geckoToCoin.set(coin.slug, coin.coinId);
    else pending.push(coin);
  }
  for (const coin of pending) {
    const symbol = coin.symbol.toLowerCase();
    const name = coin.name.toLowerCase();
    const row = ranked.find((r) => !geckoToCoin.has(r.id) && r.symbol.toLowerCase() === symbol && r.name.toLowerCase() === name);
    if (row) geckoToCoin.set(row.id, coin.coinId);
  }
  return geckoToCoin;
}

export interface CoinGeckoClientOptions {
  http: HttpOptions;
  baseUrl?: string;
  /** A CoinGecko demo key (sent as x-cg-demo-api-key); the public API works without one, slower. */
  apiKey?: string | null;
}

export class CoinGeckoClient {
  readonly name = 'coingecko';
  private readonly base: string;
  private readonly http: HttpOptions;

  constructor(options: CoinGeckoClientOptions) {
    this.base = (options.baseUrl ?? COINGECKO_BASE_URL).replace(/\/$/, '');
    this.http = options.apiKey ? { ...options.http, headers: { ...options.http.headers, 'x-cg-demo-api-key': options.apiKey } } : options.http;
  }

  private get(path: string): Promise<unknown> {
    return getJson(`${this.base}${path}`, this.http);
  }

  /** One page of the whole market by market cap (used once at start to map ids). */
  async marketsPage(page: number): Promise<CoinGeckoMarketRow[]> {
    return parseMarkets(await this.get(`/coins/markets?vs_currency=usd&order=market_cap_desc&per_page=${MARKETS_PAGE_SIZE}&page=${page}&sparkline=false&price_change_percentage=1h%2C24h%2C7d`));
  }

  /** Current figures of the given CoinGecko ids (at most 250). */
  async markets(ids: readonly string[]): Promise<CoinGeckoMarketRow[]> {
    const list = ids.map(encodeURIComponent).join('%2C');
    return parseMarkets(await this.get(`/coins/markets?vs_currency=usd&ids=${list}&per_page=${MARKETS_PAGE_SIZE}&page=1&sparkline=false&price_change_percentage=1h%2C24h%2C7d`));
  }

  async marketChart(id: string, days: number): Promise<PriceSample[]> {
    return parseMarketChart(await this.get(`/coins/${encodeURIComponent(id)}/market_chart?vs_currency=usd&days=${days}`));
  }

  async exchangeRates(): Promise<Record<string, number>> {
    return parseExchangeRates(await this.get('/exchange_rates'));
  }
}
