/** Shared pieces of the live venue adapters: a JSON GET with a timeout, number parsing. */
import type { LookupResult, MarketState } from '../types.js';
import { readCappedJson } from '../../util/capped-json.js';

export type FetchLike = typeof fetch;

export async function getJson(fetchImpl: FetchLike, url: string, timeoutMs = 10_000): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetchImpl(url, { headers: { accept: 'application/json', 'user-agent': 'paper-arena/1 (+research data ingest)' }, signal: controller.signal });
    if (!res.ok) throw new Error(`${new URL(url).host} answered ${res.status}`);
    return await readCappedJson(res);
  } finally {
    clearTimeout(timer);
  }
}

export function num(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

export function jsonArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed = JSON.parse(value);
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  }
  return [];
}

/** Below this a number is a time in seconds, not ms (as ms it would be before 1973). */
const SECONDS_BELOW = 1e11;

export const ms = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isFinite(value) ? (Math.abs(value) < SECONDS_BELOW ? value * 1000 : value) : null;
  if (typeof value !== 'string' || value === '') return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
};

export const round1 = (x: number) => Math.round(x * 10) / 10;

const CATEGORY_WORDS: [RegExp, string][] = [
  [/bitcoin|ethereum|solana|crypto|btc|eth\b|xrp|doge/i, 'crypto'],
  [/election|president|senate|governor|mayor|congress|party|vote/i, 'politics'],
  [/fed\b|rate|inflation|cpi|gdp|recession|jobs|unemployment/i, 'economics'],
  [/nba|nfl|mlb|nhl|premier league|champions|world cup|match|game|win the/i, 'sports'],
  [/launch|nasa|spacex|ai\b|model|climate|science/i, 'science'],
];

export function categoryOf(text: string, given?: unknown): string {
  if (typeof given === 'string' && given.trim()) return given.trim().toLowerCase();
  for (const [re, c] of CATEGORY_WORDS) if (re.test(text)) return c;
  return 'culture';
}

const COIN_WORDS: [RegExp, string][] = [
  [/\bbitcoin\b|\bbtc\b/i, '1'],
  [/\bethereum\b|\beth\b|\bether\b/i, '1027'],
  [/\bsolana\b|\bsol\b/i, '5426'],
  [/\bxrp\b/i, '52'],
  [/\bdogecoin\b|\bdoge\b/i, '74'],
];

/** Coins a question is directly about, from its text. */
export function coinsOf(text: string): string[] {
  return COIN_WORDS.filter(([re]) => re.test(text)).map(([, id]) => id);
}

/** A single-market read waits at most this long (several may follow one list fetch). */
export const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Reads each market on its own (one request each, one at a time); a market that fails is left out
 * (asked again on a later run), and after two failures the rest are not asked this run: a failing
 * or hanging venue must not hold the PM lists' refresh for ten timeouts. Those not asked are due
 * again on the next run.
 */
export async function lookupEach(slugs: string[], read: (slug: string) => Promise<MarketState[]>): Promise<LookupResult> {
  const markets: MarketState[] = [];
  const asked: string[] = [];
  let failures = 0;
  for (const slug of slugs) {
    asked.push(slug);
    try {
      markets.push(...(await read(slug)).filter((m) => m.slug === slug));
    } catch {
      if (++failures >= 2) break;
    }
  }
  return { markets, asked };
}
