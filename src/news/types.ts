/** One story as the news route serves it; every source (simulated or live) produces these. */
export interface NewsItem {
  id: string;
  title: string;
  /** publisher */
  source: string;
  url: string;
  publishedAtMs: number;
  category: string | null;
  sentiment: 'bullish' | 'bearish' | 'neutral' | null;
  sentimentConfidence: number | null;
  /** 0..10; 8 and above = market-moving */
  importance: number | null;
  /** coin ids the story concerns */
  coinIds: string[];
  simulated: boolean;
}

export interface NewsCoin {
  coinId: string;
  symbol: string;
  name: string;
  slug: string;
}

/** A news source behind one interface: the simulated wire and the live adapter implement it. */
export interface NewsSource {
  readonly mode: 'sim' | 'live';
  /** Stories about any of `coins` published in [sinceMs, nowMs]. Never calls the network. */
  stories(coins: NewsCoin[], sinceMs: number, nowMs: number): Promise<NewsItem[]>;
}

/** Only enriched stories, most important first, then newest; at most `limit`. */
export function rankStories(items: NewsItem[], minImportance: number, limit: number): NewsItem[] {
  return items
    .filter((i) => i.sentiment !== null && i.importance !== null && i.importance >= minImportance)
    .sort((a, b) => b.importance! - a.importance! || b.publishedAtMs - a.publishedAtMs || a.id.localeCompare(b.id))
    .slice(0, limit);
}
