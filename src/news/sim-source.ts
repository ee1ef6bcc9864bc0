import type { MarketReads } from '../marketdata/reads.js';
import { CANDLE_RANGES } from '../domain/candles.js';
import type { PmMarketRow } from '../storage/pm-repo.js';
import { leaderIndex } from '../pm/spark.js';
import type { OutcomeQuote } from '../pm/types.js';
import { venueById } from '../pm/venues.js';
import { marketStories, priceStories, type MarketMove } from './sim-wire.js';
import type { NewsCoin, NewsItem, NewsSource } from './types.js';

/** The simulated wire over the running market (7 days of 15-minute bars) and the PM snapshot. */
export class SimNewsSource implements NewsSource {
  readonly mode = 'sim' as const;

  constructor(
    private readonly reads: MarketReads,
    private readonly pmRows: () => Promise<PmMarketRow[]>,
  ) {}

  async stories(coins: NewsCoin[], sinceMs: number, nowMs: number): Promise<NewsItem[]> {
    const barMs = CANDLE_RANGES['1W'].barSeconds * 1000;
    const price = coins.flatMap((coin) => priceStories({ coin, bars: this.reads.candles(coin.coinId, '1W'), barMs }, sinceMs, nowMs));
    const wanted = new Set(coins.map((c) => c.coinId));
    const moves: MarketMove[] = [];
    for (const r of await this.pmRows()) {
      if (r.status !== 'open' || r.priceChange24h === null || !r.lastCaptureAt) continue;
      const o = r.outcomes as OutcomeQuote[];
      const lead = o[leaderIndex(r, o.map((x) => x.probability))];
      if (!lead) continue;
      for (const coinId of r.coinIds as string[]) {
        if (!wanted.has(coinId)) continue;
        moves.push({
          coinId,
          venueName: venueById(r.source)?.name ?? r.source,
          title: r.title,
          outcome: lead.name,
          probability: lead.probability,
          changePoints: r.priceChange24h,
          // A story per market per hour: the capture hour it was first seen in.
          atMs: Math.floor(r.lastCaptureAt.getTime() / 3_600_000) * 3_600_000,
          key: `${r.source}/${r.slug}`,
        });
      }
    }
    return [...price, ...marketStories(moves, coins, sinceMs, nowMs)];
  }
}
