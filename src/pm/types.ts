/** What every venue adapter (simulated or live HTTP) reports; the ingest job stores it. */
export interface OutcomeQuote {
  externalMarketId: string;
  name: string;
  /** mid probability, 0..100 */
  probability: number;
  bid: number | null;
  ask: number | null;
}

export interface MarketResolution {
  state: 'resolved' | 'voided';
  winnerExternalMarketId: string | null;
  resolvedAtMs: number;
  /** The venue reports the settlement time itself (else it is our observation time). */
  verified: boolean;
  basis: 'source' | 'final_probability';
}

export interface MarketState {
  source: string;
  slug: string;
  marketId: string;
  title: string;
  description: string | null;
  category: string;
  kind: 'binary' | 'multi';
  outcomes: OutcomeQuote[];
  volume: number;
  volume24h: number;
  liquidity: number;
  startAtMs: number | null;
  endAtMs: number | null;
  status: 'open' | 'closed';
  closedAtMs: number | null;
  resolution: MarketResolution | null;
  rules: string | null;
  settlementSource: string | null;
  coinIds: string[];
  topics: string[];
  /** Venue-reported final pre-resolution probabilities (0..100), when known. */
  finalProbabilities?: number[] | null;
  /** Venue probabilities 24 h before resolution (0..100), when known. */
  leadProbabilities?: number[] | null;
}

export interface WhalePrint {
  id: string;
  source: string;
  slug: string;
  title: string;
  wallet: string | null;
  traderName: string | null;
  side: 'buy' | 'sell';
  outcome: string;
  usdValue: number;
  /** 0..1 */
  price: number;
  tradedAtMs: number;
  evidenceType: string;
  evidenceRef: string | null;
  evidenceUrl: string | null;
}

export interface VenueSnapshot {
  markets: MarketState[];
  whales: WhalePrint[];
}

/** One venue behind one interface: the simulator and the live HTTP adapters implement it. */
export interface VenueAdapter {
  readonly source: string;
  readonly mode: 'sim' | 'live';
  /** Shortest useful interval between two fetches. */
  readonly minPollMs: number;
  /** Markets as of `nowMs` and the large prints made in (sinceMs, nowMs]. */
  fetch(nowMs: number, sinceMs: number): Promise<VenueSnapshot>;
  /**
   * The current state of markets its list no longer shows (a live list holds open markets
   * only: a market that closes or resolves leaves it, and without this its positions were
   * only ever refunded). Markets that cannot be read are left out; `asked` names the slugs it
   * asked for (those it did not ask are asked on the next run, not after the usual wait).
   */
  lookup?(slugs: string[], nowMs: number): Promise<LookupResult>;
}

export interface LookupResult {
  markets: MarketState[];
  asked: string[];
}
