/** The simulated venues: all 12 adapters read one shared, cached catalog of world questions. */
import { seedKey } from '../../marketdata/sim/random.js';
import { VENUES } from '../venues.js';
import type { MarketState, VenueAdapter, VenueSnapshot, WhalePrint } from '../types.js';
import { listingState, listingWhales } from './path.js';
import type { CoinPrices } from './coin-prices.js';
import { DAY_MS, HOUR_MS, archiveCatalog, flashQuestionsAround, regularQuestionsAround, type Question } from './questions.js';

export type SimProfile = 'realistic' | 'fast';

/** Recently ended questions stay in snapshots this long, so their resolution is reported. */
const RECENT_MS = 3 * DAY_MS;

export interface CapturePoint {
  source: string;
  slug: string;
  capturedAtMs: number;
  probabilities: number[];
  volume: number;
  volume24h: number;
  liquidity: number;
}

export class SimWorld {
  readonly seedKey: number;
  private cacheAt = -1;
  private cache: Question[] = [];

  /** `prices`: the simulated coins' price path; coin questions then anchor and settle on it. */
  constructor(
    readonly seed: string,
    readonly profile: SimProfile,
    private readonly prices?: CoinPrices,
  ) {
    this.seedKey = seedKey(seed);
  }

  /** Questions live around `nowMs` (cached per minute: every venue asks for the same list). */
  questions(nowMs: number, includeFlash = true): Question[] {
    const minute = Math.floor(nowMs / 60_000);
    if (minute !== this.cacheAt) {
      this.cache = regularQuestionsAround(this.seed, nowMs, RECENT_MS, this.prices);
      if (this.profile === 'fast') this.cache.push(...flashQuestionsAround(this.seed, nowMs, 30 * 60_000, this.prices).map((q) => ({ ...q, flash: true })));
      this.cacheAt = minute;
    }
    return includeFlash ? this.cache : this.cache.filter((q) => !(q as { flash?: boolean }).flash);
  }

  snapshot(source: string, nowMs: number, sinceMs: number): VenueSnapshot {
    const markets: MarketState[] = [];
    const whales: WhalePrint[] = [];
    for (const q of this.questions(nowMs)) {
      for (const l of q.listings) {
        if (l.venue.id !== source) continue;
        markets.push(listingState(this.seedKey, q, l, nowMs));
        whales.push(...listingWhales(this.seedKey, q, l, sinceMs, nowMs));
      }
    }
    return { markets, whales };
  }

  /** Resolved markets from the venues' first years until capture began (no captures of ours). */
  archive(): MarketState[] {
    const out: MarketState[] = [];
    for (const q of archiveCatalog(this.seed)) {
      for (const l of q.listings) out.push(listingState(this.seedKey, q, l, q.endAt + 3 * DAY_MS));
    }
    return out;
  }

  /**
   * Our capture history over (nowMs − windowMs, nowMs]: every 2 h for the last 2 days, every 4 h
   * to 7 days, every 12 h before (sparklines, price history and calibration need no more).
   * Also returns the states at the end of the window and the large prints in it.
   */
  async backfill(nowMs: number, windowMs: number): Promise<{ captures: CapturePoint[]; states: MarketState[]; whales: WhalePrint[] }> {
    const times: number[] = [];
    const from = nowMs - windowMs;
    const grid = (step: number, start: number, end: number) => {
      for (let t = Math.ceil(start / step) * step; t < end; t += step) if (t > from) times.push(t);
    };
    grid(12 * HOUR_MS, from, nowMs - 7 * DAY_MS);
    grid(4 * HOUR_MS, nowMs - 7 * DAY_MS, nowMs - 2 * DAY_MS);
    grid(2 * HOUR_MS, nowMs - 2 * DAY_MS, nowMs);
    // Venues without native history keep a sparser own history: enough for sparklines, daily volume and calibration.
    const sparse = times.filter((t) => (t > nowMs - 7 * DAY_MS ? t % (8 * HOUR_MS) === 0 : t % DAY_MS === 0));
    const questions = new Map<string, Question>();
    for (const q of regularQuestionsAround(this.seed, nowMs, windowMs + RECENT_MS, this.prices)) questions.set(q.key, q);
    const captures: CapturePoint[] = [];
    const states: MarketState[] = [];
    const whales: WhalePrint[] = [];
    let n = 0;
    for (const q of questions.values()) {
      // Yield now and then: the server answers requests while it back-fills.
      if (++n % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
      for (const l of q.listings) {
        const lastBeforeClose = q.endAt - 10 * 60_000;
        const own = l.venue.nativeHistory ? times : sparse;
        const at = lastBeforeClose > from && lastBeforeClose < nowMs ? [...own.filter((t) => t < lastBeforeClose), lastBeforeClose] : own;
        for (const t of at) {
          // Captures stop once the venue closes the market (the last one is the pre-resolution capture).
          if (t < q.openAt || t >= q.endAt) continue;
          const s = listingState(this.seedKey, q, l, t);
          captures.push({
            source: s.source,
            slug: s.slug,
            capturedAtMs: t,
            probabilities: s.outcomes.map((o) => o.probability),
            volume: s.volume,
            volume24h: s.volume24h,
            liquidity: s.liquidity,
          });
        }
        states.push(listingState(this.seedKey, q, l, nowMs));
        whales.push(...listingWhales(this.seedKey, q, l, nowMs - 7 * DAY_MS, nowMs));
      }
    }
    return { captures, states, whales };
  }

  adapters(): VenueAdapter[] {
    return VENUES.map((venue) => ({
      source: venue.id,
      mode: 'sim' as const,
      minPollMs: 0,
      fetch: async (nowMs: number, sinceMs: number) => this.snapshot(venue.id, nowMs, sinceMs),
    }));
  }
}
