/**
 * Live news from CryptoCompare's public news API (GET /data/v2/news/?lang=EN). A job calls
 * `refresh()`; requests read the last good batch from memory, never the network. Sentiment
 * and importance are our keyword estimate (the API supplies neither), so they are marked
 * with a low confidence.
 */
import { getJson, type HttpOptions } from '../marketdata/live/http-json.js';
import type { NewsCoin, NewsItem, NewsSource } from './types.js';

export const CRYPTOCOMPARE_NEWS_URL = 'https://min-api.cryptocompare.com/data/v2/news/?lang=EN';
const KEEP_MS = 7 * 86_400_000;

const BULLISH = /\b(surge|soar|rall(y|ies)|jump|gain|record high|all-time high|bull|approv|inflow|breakout|adopt)/i;
const BEARISH = /\b(plunge|crash|slump|drop|fall|sell-off|selloff|bear|hack|exploit|outflow|lawsuit|ban|liquidat)/i;
const MAJOR = /\b(sec|etf|fed|hack|exploit|bankrupt|lawsuit|all-time high|record)\b/i;

export interface RawStory {
  id: string;
  title: string;
  url: string;
  publishedOnMs: number;
  source: string;
  categories: string[];
  text: string;
}

/** Stories of one API answer; rows that do not fit are skipped, not trusted. */
export function parseNews(json: unknown): RawStory[] {
  const data = (json as { Data?: unknown })?.Data;
  if (!Array.isArray(data)) throw new TypeError('news: expected {Data: []}');
  const out: RawStory[] = [];
  for (const raw of data) {
    const r = raw as Record<string, unknown>;
    if (typeof r?.title !== 'string' || typeof r.url !== 'string' || typeof r.published_on !== 'number') continue;
    const info = r.source_info as { name?: unknown } | undefined;
    out.push({
      id: String(r.id ?? r.guid ?? r.url),
      title: r.title,
      url: r.url,
      publishedOnMs: r.published_on * 1000,
      source: typeof info?.name === 'string' ? info.name : typeof r.source === 'string' ? r.source : 'unknown',
      categories: typeof r.categories === 'string' ? r.categories.split('|').filter(Boolean) : [],
      text: `${r.title} ${typeof r.body === 'string' ? r.body.slice(0, 400) : ''} ${typeof r.tags === 'string' ? r.tags : ''}`,
    });
  }
  return out;
}

/** Which coins a story names (symbol as a whole word, or the full name). */
export function storyCoins(story: RawStory, coins: NewsCoin[]): string[] {
  const text = `${story.text} ${story.categories.join(' ')}`;
  return coins
    .filter((c) => new RegExp(`\\b${c.symbol.replace(/[^A-Za-z0-9]/g, '')}\\b`).test(text) || text.toLowerCase().includes(c.name.toLowerCase()))
    .map((c) => c.coinId);
}

export function enrich(story: RawStory, coinIds: string[]): NewsItem {
  const bull = BULLISH.test(story.text);
  const bear = BEARISH.test(story.text);
  return {
    id: `cc-${story.id}`,
    title: story.title,
    source: story.source,
    url: story.url,
    publishedAtMs: story.publishedOnMs,
    category: story.categories[0] ?? null,
    sentiment: bull === bear ? 'neutral' : bull ? 'bullish' : 'bearish',
    sentimentConfidence: bull === bear ? 0.3 : 0.55,
    importance: MAJOR.test(story.text) ? 8 : bull || bear ? 5 : 3,
    coinIds,
    simulated: false,
  };
}

export class CryptoCompareNewsSource implements NewsSource {
  readonly mode = 'live' as const;
  private batch: RawStory[] = [];

  constructor(private readonly http: HttpOptions) {}

  /** Fetches the latest stories and keeps a week of them; a failed fetch keeps the last batch. */
  async refresh(nowMs: number): Promise<number> {
    const fresh = parseNews(await getJson(CRYPTOCOMPARE_NEWS_URL, this.http));
    const byId = new Map([...this.batch, ...fresh].map((s) => [s.id, s]));
    this.batch = [...byId.values()].filter((s) => s.publishedOnMs >= nowMs - KEEP_MS);
    return fresh.length;
  }

  async stories(coins: NewsCoin[], sinceMs: number, nowMs: number): Promise<NewsItem[]> {
    return this.batch
      .filter((s) => s.publishedOnMs >= sinceMs && s.publishedOnMs <= nowMs)
      .map((s) => ({ s, ids: storyCoins(s, coins) }))
      .filter((x) => x.ids.length > 0)
      .map((x) => enrich(x.s, x.ids));
  }
}
