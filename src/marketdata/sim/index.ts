/** The simulated crypto market: pure, seeded, deterministic on absolute minutes. */
export { backfill, runMarket, type BackfillOptions, type BackfillResult, type RunOptions, type SimRunResult } from './backfill.js';
export { seriesBars, seriesCandles, type SimCandleSeries } from './candle-series.js';
export { coinKind, isPeggedStablecoin, type CoinKind } from './coin-kind.js';
export { FIAT_CODES, FIAT_CURRENCIES, fiatRateAt, fiatRatesAt, isFiatCode } from './fiat.js';
export { TICK_MS, TICKS_PER_MINUTE, coinPriceAt, pricesAt, pricesBetween } from './intraminute.js';
export { MINUTES_PER_DAY, MS_PER_MINUTE, SIM_PROFILES, minuteIndexOf, type SimParams, type SimProfileName } from './params.js';
export { fatTailed, normal, uniform, type SimSeed } from './random.js';
export { REGIMES, type Regime } from './regimes.js';
export {
  BASELINE_OFFSETS_MIN,
  NO_BASELINES,
  marketSnapshot,
  pricesOf,
  type ChangeBaselines,
  type CoinMarketSnapshot,
  type MarketSnapshot,
  type SnapshotOptions,
} from './snapshot.js';
export { initialMarketState, type CoinSimState, type MarketState } from './state.js';
export { advanceMarket, stepMarket } from './step.js';
export { createSimUniverse, type SimUniverse } from './universe.js';
