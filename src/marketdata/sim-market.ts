/**
 * The running simulated market: the minute state, every coin's bars and the 10-second
 * ticks of the current minute, all in memory. Time only moves through advanceTo(nowMs),
 * so every process that advances the same stored state to the same instant shows the
 * same prices (the simulation is deterministic on absolute minutes).
 */
import { CANDLE_RANGES, barToCandle, type BarAccumulator, type Candle, type CandleRange } from '../domain/candles.js';
import type { CoinRef } from '../domain/coin-ref.js';
import type { FearGreed } from '../domain/fear-greed.js';
import { percentChange, realizedDailyVolatility } from '../domain/market-stats.js';
import type { Coin } from './coins.js';
import type { PriceObservation, PriceRange } from './feed.js';
import type { CoinQuote, MarketReads } from './reads.js';
import { BarBook } from './sim/bar-book.js';
import { runMarket } from './sim/backfill.js';
import { fiatRateAt } from './sim/fiat.js';
import { TICK_MS, TICKS_PER_MINUTE, pricesBetween } from './sim/intraminute.js';
import { MS_PER_MINUTE, minuteIndexOf } from './sim/params.js';
import { marketSnapshot, type ChangeBaselines, type MarketSnapshot } from './sim/snapshot.js';
import { copyArrays, stateToArrays, type MarketState, type SimArrays } from './sim/state.js';
import { stepArrays } from './sim/step.js';
import type { SimUniverse } from './sim/universe.js';

/** Ticks of the current minute folded so far, per coin. */
interface MinuteTicks {
  count: number;
  high: Float64Array;
  low: Float64Array;
  last: Float64Array;
  lastMs: number;
}

/** Bars the 1h / 24h / 7d changes are read from: the finest range whose window reaches back that far. */
const BASELINE_SOURCES: readonly { key: keyof ChangeBaselines; minutes: number; range: CandleRange }[] = [
  { key: 'oneHourAgo', minutes: 60, range: '1D' },
  { key: 'oneDayAgo', minutes: 1440, range: '1M' },
  { key: 'sevenDaysAgo', minutes: 10_080, range: '1M' },
];

export class SimMarket implements MarketReads {
  readonly source = 'sim';
  private current!: SimArrays;
  private next!: SimArrays;
  private ticks!: MinuteTicks;
  private snap!: MarketSnapshot;
  /** The prices 1 h, 24 h and 7 d back that changes compare with (fixed for the minute). */
  private changeBase!: ChangeBaselines;
  private versionCounter = 0;
  private readonly sortedCoins: readonly Coin[];

  constructor(
    readonly universe: SimUniverse,
    private stateValue: MarketState,
    readonly book: BarBook,
  ) {
    this.sortedCoins = [...universe.coins].sort((a, b) => a.rank - b.rank);
    this.enterMinute();
  }

  /** The minute state the bars are folded up to (what a checkpoint stores). */
  get state(): MarketState {
    return this.stateValue;
  }

  /** Moves the market to nowMs: whole minutes through the simulation, then this minute's ticks. */
  advanceTo(nowMs: number): void {
    const minute = minuteIndexOf(nowMs);
    if (minute > this.stateValue.minuteIndex) {
      const run = runMarket(this.universe, this.stateValue, minute, { startSampleFolded: true });
      this.book.mergeSeries(run.series);
      this.stateValue = run.state;
      this.enterMinute();
    }
    this.foldTicksUntil(nowMs);
  }

  private enterMinute(): void {
    this.current = stateToArrays(this.universe, this.stateValue);
    this.next = copyArrays(this.current);
    stepArrays(this.universe, this.next);
    const n = this.universe.coins.length;
    const startMs = this.minuteStartMs();
    this.ticks = { count: 0, high: new Float64Array(n), low: new Float64Array(n).fill(Number.POSITIVE_INFINITY), last: this.current.price.slice(), lastMs: startMs };
    this.changeBase = this.baselines();
    this.snap = marketSnapshot(this.universe, this.stateValue, this.changeBase, { btcRealizedDailyVol: this.btcRealizedVol() });
    this.versionCounter += 1;
  }

  private minuteStartMs(): number {
    return this.stateValue.minuteIndex * MS_PER_MINUTE;
  }

  private foldTicksUntil(nowMs: number): void {
    const due = Math.min(TICKS_PER_MINUTE - 1, Math.floor((nowMs - this.minuteStartMs()) / TICK_MS));
    const t = this.ticks;
    while (t.count < due) {
      t.count += 1;
      const tickMs = this.minuteStartMs() + t.count * TICK_MS;
      const prices = pricesBetween(this.universe, this.current, this.next, tickMs);
      for (let i = 0; i < prices.length; i += 1) {
        const p = prices[i]!;
        if (p > t.high[i]!) t.high[i] = p;
        if (p < t.low[i]!) t.low[i] = p;
        t.last[i] = p;
      }
      t.lastMs = tickMs;
      this.versionCounter += 1;
    }
  }

  private baselines(): ChangeBaselines {
    const n = this.universe.coins.length;
    const out: { -readonly [K in keyof ChangeBaselines]: ChangeBaselines[K] } = { oneHourAgo: null, oneDayAgo: null, sevenDaysAgo: null };
    for (const source of BASELINE_SOURCES) {
      const targetSec = (this.stateValue.minuteIndex - source.minutes) * 60;
      const prices = new Float64Array(n);
      let found = 0;
      for (let i = 0; i < n; i += 1) {
        const bar = this.book.barContaining(source.range, i, targetSec);
        if (bar !== undefined) {
          prices[i] = bar.o;
          found += 1;
        }
      }
      if (found > 0) out[source.key] = prices;
    }
    return out;
  }

  private btcRealizedVol(): number | null {
    const i = this.universe.btcIndex;
    if (i < 0) return null;
    const bars = this.book.coinBars('1D', i);
    return bars.length < 3 ? null : realizedDailyVolatility(bars.map((b) => b.c), CANDLE_RANGES['1D'].barSeconds);
  }

  private index(coinId: string): number | undefined {
    return this.universe.indexById.get(coinId);
  }

  // --- MarketFeed ---

  coin(coinId: string): CoinRef | null {
    const i = this.index(coinId);
    return i === undefined ? null : this.universe.coins[i]!;
  }

  price(coinId: string): PriceObservation | null {
    const i = this.index(coinId);
    if (i === undefined) return null;
    return { coinId, priceUsd: this.ticks.last[i]!, asOfMs: this.ticks.lastMs };
  }

  priceRange(coinId: string, fromMs: number, toMs: number): PriceRange | null {
    const i = this.index(coinId);
    if (i === undefined || toMs <= fromMs) return null;
    let low = Number.POSITIVE_INFINITY;
    let high = 0;
    const take = (l: number, h: number) => {
      if (l < low) low = l;
      if (h > high) high = h;
    };
    // Completed and current minute bars (1-minute bars overlapping the window).
    const firstMinuteMs = (this.book.firstOpen('1H', i) ?? Number.POSITIVE_INFINITY) * 1000;
    this.book.scanLowHigh('1H', i, (openSec, l, h) => {
      const openMs = openSec * 1000;
      if (openMs + MS_PER_MINUTE > fromMs && openMs <= toMs) take(l, h);
    });
    // Older than the last hour: 5-minute bars that begin inside the window. A bar that began
    // before `fromMs` would let a resting order fill on prices from before it rested.
    if (fromMs < firstMinuteMs) {
      this.book.scanLowHigh('1D', i, (openSec, l, h) => {
        const openMs = openSec * 1000;
        if (openMs >= fromMs && openMs < Math.min(toMs, firstMinuteMs)) take(l, h);
      });
    }
    // This minute's ticks.
    if (this.ticks.count > 0 && this.ticks.lastMs > fromMs && this.minuteStartMs() <= toMs) take(this.ticks.low[i]!, this.ticks.high[i]!);
    return high === 0 ? null : { low, high };
  }

  // --- MarketReads ---

  coins(): readonly Coin[] {
    return this.sortedCoins;
  }

  quote(coinId: string): CoinQuote | null {
    const i = this.index(coinId);
    if (i === undefined) return null;
    const s = this.snap.coins[i]!;
    const price = this.ticks.last[i]!;
    const base = this.changeBase;
    return {
      coinId,
      priceUsd: price,
      // against the price served now (this minute's latest tick), not the minute's opening one
      change1h: percentChange(price, base.oneHourAgo?.[i]),
      change24h: percentChange(price, base.oneDayAgo?.[i]),
      change7d: percentChange(price, base.sevenDaysAgo?.[i]),
      marketCapUsd: price * this.universe.coins[i]!.circulatingSupply,
      volume24hUsd: s.volume24hUsd,
      sentiment: s.sentiment,
      asOfMs: this.ticks.lastMs,
    };
  }

  fearGreed(): FearGreed | null {
    return this.snap.fearGreed;
  }

  candles(coinId: string, range: CandleRange): Candle[] {
    const i = this.index(coinId);
    if (i === undefined) return [];
    const bars = this.book.coinBars(range, i);
    const last = bars[bars.length - 1];
    if (range === '1H' && last !== undefined && this.ticks.count > 0) {
      // The current minute's bar grows with every 10-second tick.
      const t = this.ticks;
      const live: BarAccumulator = {
        ...last,
        h: Math.max(last.h, t.high[i]!),
        l: Math.min(last.l, t.low[i]!),
        c: t.last[i]!,
        volumeSum: last.volumeSum + t.count * this.current.volume[i]!,
        samples: last.samples + t.count,
      };
      return [...bars.slice(0, -1), live].map(barToCandle);
    }
    return bars.map(barToCandle);
  }

  fiatRate(code: string): number | null {
    return fiatRateAt(this.universe.seed, code, this.stateValue.minuteIndex);
  }

  version(): number {
    return this.versionCounter;
  }
}
