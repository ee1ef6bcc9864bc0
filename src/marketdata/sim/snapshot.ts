/** What the API shows for the simulated market at one minute: per-coin figures and Fear & Greed. */
import { breadthUp, fearGreed, type FearGreed } from '../../domain/fear-greed.js';
import { percentChange, sentimentView, type SentimentView } from '../../domain/market-stats.js';
import { MINUTES_PER_DAY, MS_PER_MINUTE } from './params.js';
import { regimeName, type Regime } from './regimes.js';
import { stateToArrays, type MarketState } from './state.js';
import type { SimUniverse } from './universe.js';

/** Prices (universe order) at the minutes the percentage changes compare against. */
export interface ChangeBaselines {
  oneHourAgo: Float64Array | null;
  oneDayAgo: Float64Array | null;
  sevenDaysAgo: Float64Array | null;
}

export const NO_BASELINES: ChangeBaselines = { oneHourAgo: null, oneDayAgo: null, sevenDaysAgo: null };

/** Minutes back for change1h, change24h and change7d. */
export const BASELINE_OFFSETS_MIN = { oneHourAgo: 60, oneDayAgo: MINUTES_PER_DAY, sevenDaysAgo: 7 * MINUTES_PER_DAY } as const;

export interface CoinMarketSnapshot {
  coinId: string;
  priceUsd: number;
  /** price x circulating supply */
  marketCapUsd: number;
  volume24hUsd: number;
  /** Percentages (2.5 = +2.5 %); null when the history does not reach back far enough. */
  change1h: number | null;
  change24h: number | null;
  change7d: number | null;
  sentiment: SentimentView;
  regime: Regime;
}

export interface MarketSnapshot {
  minuteIndex: number;
  /** unix ms of the snapshot instant */
  asOfMs: number;
  coins: CoinMarketSnapshot[];
  fearGreed: FearGreed;
}

export interface SnapshotOptions {
  /** BTC's realised daily volatility over the last day (e.g. from 5-minute closes); null = unknown. */
  btcRealizedDailyVol?: number | null;
}

/** Prices of a stored state in universe order (a baseline for later changes). */
export function pricesOf(u: SimUniverse, state: MarketState): Float64Array {
  return stateToArrays(u, state).price.slice();
}

export function marketSnapshot(
  u: SimUniverse,
  state: MarketState,
  baselines: ChangeBaselines = NO_BASELINES,
  options: SnapshotOptions = {},
): MarketSnapshot {
  const a = stateToArrays(u, state);
  const coins = u.coins.map((coin, i): CoinMarketSnapshot => {
    const price = a.price[i]!;
    return {
      coinId: coin.coinId,
      priceUsd: price,
      marketCapUsd: price * coin.circulatingSupply,
      volume24hUsd: a.volume[i]!,
      change1h: percentChange(price, baselines.oneHourAgo?.[i]),
      change24h: percentChange(price, baselines.oneDayAgo?.[i]),
      change7d: percentChange(price, baselines.sevenDaysAgo?.[i]),
      sentiment: sentimentView(a.bullish[i]!, a.bearish[i]!),
      regime: regimeName(a.regime[i]!),
    };
  });
  const btc = u.btcIndex >= 0 ? coins[u.btcIndex] : undefined;
  const normalDailyVol = u.btcIndex >= 0 ? u.totalMinuteVol[u.btcIndex]! * Math.sqrt(MINUTES_PER_DAY) : 0;
  const realized = options.btcRealizedDailyVol ?? null;
  return {
    minuteIndex: a.minuteIndex,
    asOfMs: a.minuteIndex * MS_PER_MINUTE,
    coins,
    fearGreed: fearGreed({
      breadthUp: breadthUp(coins.filter((_c, i) => u.isStable[i] === 0).map((c) => c.change24h)),
      btcChange7dPct: btc?.change7d ?? null,
      volatilityRatio: realized !== null && normalDailyVol > 0 ? realized / normalDailyVol : null,
    }),
  };
}
