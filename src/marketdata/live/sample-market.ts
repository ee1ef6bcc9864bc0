/**
 * MarketReads over observed snapshots (live polls or a replayed tape): each snapshot gives
 * every coin's price and figures at one instant; candles and price ranges are built from
 * the stored samples (buildCandles), and the latest figures answer quote().
 */
import { CANDLE_RANGES, buildCandles, barOpenTime, type Candle, type CandleRange, type PriceSample } from '../../domain/candles.js';
import type { CoinRef } from '../../domain/coin-ref.js';
import { fearGreedLabel, type FearGreed, type FearGreedLabel } from '../../domain/fear-greed.js';
import { percentChange, sentimentView } from '../../domain/market-stats.js';
import type { Clock } from '../../util/clock.js';
import type { Coin } from '../coins.js';
import type { PriceObservation, PriceRange } from '../feed.js';
import type { CoinQuote, MarketReads } from '../reads.js';
import { fiatRateAt, isFiatCode } from '../sim/fiat.js';
import { minuteIndexOf } from '../sim/params.js';
import { SampleSeries } from './sample-series.js';

/** One coin's figures in a snapshot; absent figures are derived (changes from samples, cap from supply). */
export interface QuoteInput {
  priceUsd: number;
  volume24hUsd?: number | null;
  marketCapUsd?: number | null;
  change1h?: number | null;
  change24h?: number | null;
  change7d?: number | null;
  bullishVotes?: number | null;
  bearishVotes?: number | null;
}

export interface SnapshotInput {
  /** unix ms of the observation */
  tMs: number;
  quotes: Readonly<Record<string, QuoteInput>>;
  fearGreed?: FearGreed | null;
  /** fiat units per USD by code */
  fiat?: Readonly<Record<string, number>> | null;
}

const THIN_EVERY_MS = 10 * 60_000;
const FEAR_GREED_LABELS: readonly string[] = ['Extreme Fear', 'Fear', 'Neutral', 'Greed', 'Extreme Greed'];

/** A Fear & Greed value with the source's label when it is one of ours, else our label for the value. */
export function toFearGreed(value: number, label?: string | null): FearGreed | null {
  if (!Number.isFinite(value) || value < 0 || value > 100) return null;
  const rounded = Math.round(value);
  return { value: rounded, label: label && FEAR_GREED_LABELS.includes(label) ? (label as FearGreedLabel) : fearGreedLabel(rounded) };
}

export interface SampleMarketOptions {
  /** `live:coingecko` or `replay` (the observation record's source). */
  source: string;
  /** The market's now: wall time in live mode, tape time in replay. */
  clock: Clock;
  /** Seed of the simulated fiat model used for codes the source gave no rate for. */
  fiatSeed?: string;
}

export class SampleMarket implements MarketReads {
  readonly source: string;
  private readonly clock: Clock;
  private readonly fiatSeed: string;
  private readonly sorted: readonly Coin[];
  private readonly byId: ReadonlyMap<string, { coin: Coin; series: SampleSeries }>;
  private readonly quotes = new Map<string, CoinQuote>();
  private fearGreedValue: FearGreed | null = null;
  private fiat: Readonly<Record<string, number>> = {};
  private counter = 0;
  private seenMinute = -1;
  private lastThinMs = 0;
  private latestMs: number | null = null;

  constructor(coins: readonly Coin[], options: SampleMarketOptions) {
    this.source = options.source;
    this.clock = options.clock;
    this.fiatSeed = options.fiatSeed ?? 'paper-arena';
    this.sorted = [...coins].sort((a, b) => a.rank - b.rank);
    this.byId = new Map(coins.map((coin) => [coin.coinId, { coin, series: new SampleSeries() }]));
  }

  /** unix ms of the newest snapshot taken in; null before the first. */
  get latestSnapshotMs(): number | null {
    return this.latestMs;
  }

  /** Takes in one snapshot: a sample per coin and the latest figures. Unknown coins are ignored. */
  ingest(snapshot: SnapshotInput): void {
    const tSec = Math.floor(snapshot.tMs / 1000);
    for (const [coinId, q] of Object.entries(snapshot.quotes)) {
      const entry = this.byId.get(coinId);
      if (!entry || !(Number.isFinite(q.priceUsd) && q.priceUsd > 0)) continue;
      const previous = this.quotes.get(coinId);
      if (previous && previous.asOfMs > snapshot.tMs) {
        entry.series.add(tSec, q.priceUsd, q.volume24hUsd ?? previous.volume24hUsd); // a late, older snapshot only adds history
        continue;
      }
      const volume = finiteOr(q.volume24hUsd, previous?.volume24hUsd ?? 0);
      entry.series.add(tSec, q.priceUsd, volume);
      const changeSince = (seconds: number) => percentChange(q.priceUsd, entry.series.priceAtOrBefore(tSec - seconds));
      this.quotes.set(coinId, {
        coinId,
        priceUsd: q.priceUsd,
        change1h: finiteOr(q.change1h, changeSince(3600)),
        change24h: finiteOr(q.change24h, changeSince(86_400)),
        change7d: finiteOr(q.change7d, changeSince(7 * 86_400)),
        marketCapUsd: finiteOr(q.marketCapUsd, entry.coin.circulatingSupply > 0 ? q.priceUsd * entry.coin.circulatingSupply : null),
        volume24hUsd: volume,
        sentiment: sentimentView(q.bullishVotes ?? 0, q.bearishVotes ?? 0),
        asOfMs: snapshot.tMs,
      });
    }
    if (snapshot.fearGreed !== undefined && snapshot.fearGreed !== null) this.fearGreedValue = snapshot.fearGreed;
    if (snapshot.fiat) this.fiat = { ...this.fiat, ...snapshot.fiat };
    if (this.latestMs === null || snapshot.tMs > this.latestMs) this.latestMs = snapshot.tMs;
    if (snapshot.tMs - this.lastThinMs >= THIN_EVERY_MS) this.thin(snapshot.tMs);
    this.counter += 1;
  }

  /** Older samples (a source's history back-fill): they feed candles, never the latest quote. */
  addHistory(coinId: string, samples: readonly PriceSample[]): void {
    const entry = this.byId.get(coinId);
    if (!entry) return;
    // History never overrides what the polls saw: only samples before the latest quote count.
    const latest = this.quotes.get(coinId);
    const beforeSec = latest ? Math.floor(latest.asOfMs / 1000) : Number.POSITIVE_INFINITY;
    for (const s of samples) if (s.t < beforeSec) entry.series.add(s.t, s.price, s.volume24hUsd);
    this.counter += 1;
  }

  setFearGreed(value: FearGreed | null): void {
    if (value === null) return;
    this.fearGreedValue = value;
    this.counter += 1;
  }

  setFiatRates(rates: Readonly<Record<string, number>>): void {
    this.fiat = { ...this.fiat, ...rates };
    this.counter += 1;
  }

  /** The fiat rates a source gave (the rest come from the simulated fiat model). */
  observedFiat(): Readonly<Record<string, number>> {
    return this.fiat;
  }

  /** Drops samples no candle range shows any more (see THINNING_TIERS). */
  thin(nowMs: number): void {
    const nowSec = Math.floor(nowMs / 1000);
    for (const { series } of this.byId.values()) series.thin(nowSec);
    this.lastThinMs = nowMs;
    this.counter += 1;
  }

  /** Every stored sample by coin (what a checkpoint writes). */
  *allSamples(): Generator<[string, PriceSample[]]> {
    for (const [coinId, { series }] of this.byId) {
      if (series.length > 0) yield [coinId, series.samplesFrom(Number.NEGATIVE_INFINITY)];
    }
  }

  sampleCount(): number {
    let n = 0;
    for (const { series } of this.byId.values()) n += series.length;
    return n;
  }

  // --- MarketFeed ---

  coin(coinId: string): CoinRef | null {
    return this.byId.get(coinId)?.coin ?? null;
  }

  price(coinId: string): PriceObservation | null {
    const q = this.quotes.get(coinId);
    return q ? { coinId, priceUsd: q.priceUsd, asOfMs: q.asOfMs } : null;
  }

  priceRange(coinId: string, fromMs: number, toMs: number): PriceRange | null {
    const entry = this.byId.get(coinId);
    if (!entry || toMs <= fromMs) return null;
    return entry.series.range(Math.floor(fromMs / 1000), Math.floor(toMs / 1000));
  }

  // --- MarketReads ---

  coins(): readonly Coin[] {
    return this.sorted;
  }

  quote(coinId: string): CoinQuote | null {
    return this.quotes.get(coinId) ?? null;
  }

  fearGreed(): FearGreed | null {
    return this.fearGreedValue;
  }

  candles(coinId: string, range: CandleRange): Candle[] {
    const entry = this.byId.get(coinId);
    if (!entry || entry.series.length === 0) return [];
    const nowSec = Math.floor(this.clock.now() / 1000);
    const { barSeconds, count } = CANDLE_RANGES[range];
    const firstOpen = barOpenTime(nowSec, barSeconds) - (count - 1) * barSeconds;
    return buildCandles(entry.series.samplesFrom(firstOpen), range, { nowSec });
  }

  fiatRate(code: string): number | null {
    const upper = code.toUpperCase();
    if (!isFiatCode(upper)) return null;
    const observed = this.fiat[upper];
    if (observed !== undefined && Number.isFinite(observed) && observed > 0) return observed;
    return fiatRateAt(this.fiatSeed, upper, minuteIndexOf(this.clock.now()));
  }

  version(): number {
    // A new minute adds a (flat) newest bar even without new samples.
    const minute = minuteIndexOf(this.clock.now());
    if (minute !== this.seenMinute) {
      this.seenMinute = minute;
      this.counter += 1;
    }
    return this.counter;
  }
}

function finiteOr<T>(value: number | null | undefined, fallback: T): number | T {
  return value !== null && value !== undefined && Number.isFinite(value) ? value : fallback;
}
