import { pmMarkets } from '../../src/storage/schema.js';
import type { Queryable } from '../../src/storage/db.js';

export interface TradeableBinary {
  source: string;
  slug: string;
  yesId: string;
  noId: string;
  /** The first outcome's probability. */
  p: number;
}

/** Open binary markets on trading venues (polymarket, kalshi), priced inside 10..90 on the first outcome. */
export async function tradeableBinaryMarkets(db: Queryable): Promise<TradeableBinary[]> {
  const rows = await db.select().from(pmMarkets);
  return rows
    .filter((r) => (r.source === 'polymarket' || r.source === 'kalshi') && r.kind === 'binary' && r.status === 'open' && !r.resolutionState)
    .map((r) => {
      const o = r.outcomes as { externalMarketId: string; probability: number }[];
      return { source: r.source, slug: r.slug, yesId: o[0]!.externalMarketId, noId: o[1]!.externalMarketId, p: o[0]!.probability };
    })
    .filter((m) => m.p > 10 && m.p < 90);
}
