/** Tunables of the simulated crypto market, per SIM_PROFILE. */
export interface SimParams {
  /** Daily volatility of the market factor (BTC-like), e.g. 0.03 = 3 %. */
  marketDailyVol: number;
  /** Multiplies every coin's volatility (the `fast` profile moves more). */
  volatilityScale: number;
  /**
   * Daily log-drift in a trending regime, as a multiple of the component's own daily
   * volatility (so a trend moves gold far less than a meme coin).
   */
  trendDriftPerDailyVol: number;
  /** Per-minute probability that the market regime is redrawn. */
  marketRegimeRefreshPerMinute: number;
  /** Per-minute probability that a coin's own regime is redrawn. */
  coinRegimeRefreshPerMinute: number;
  /** Largest absolute log-return of one coin in one minute (caps extreme tail draws). */
  maxMinuteLogReturn: number;
  /** Stablecoins: per-minute noise of the log-deviation from the peg. */
  stableMinuteNoise: number;
  /** Stablecoins: share of the deviation from the peg removed each minute. */
  stableReversionPerMinute: number;
  /** Rolling 24 h volume: share of the gap to its activity target closed each minute. */
  volumeReversionPerMinute: number;
  /** How strongly unusual moves (squared standardised returns) raise volume. */
  volumeActivityGain: number;
  /** Community votes are cast in batches every this many minutes (divides 1440). */
  sentimentBatchMinutes: number;
}

export type SimProfileName = 'realistic' | 'fast';

const REALISTIC: SimParams = {
  marketDailyVol: 0.03,
  volatilityScale: 1,
  trendDriftPerDailyVol: 0.6,
  marketRegimeRefreshPerMinute: 1 / (12 * 60),
  coinRegimeRefreshPerMinute: 1 / (8 * 60),
  maxMinuteLogReturn: 0.25,
  stableMinuteNoise: 0.0001,
  stableReversionPerMinute: 0.02,
  volumeReversionPerMinute: 1 / 720,
  volumeActivityGain: 0.5,
  sentimentBatchMinutes: 5,
};

/** Demo/test profile: livelier prices and regimes that change within minutes-long sessions. */
const FAST: SimParams = {
  ...REALISTIC,
  volatilityScale: 3,
  trendDriftPerDailyVol: 1.5,
  marketRegimeRefreshPerMinute: 1 / 20,
  coinRegimeRefreshPerMinute: 1 / 15,
  volumeReversionPerMinute: 1 / 60,
};

export const SIM_PROFILES: Readonly<Record<SimProfileName, Readonly<SimParams>>> = {
  realistic: REALISTIC,
  fast: FAST,
};

export const MINUTES_PER_DAY = 1440;
export const MS_PER_MINUTE = 60_000;

/** The absolute minute of a unix-ms instant: the sim's only clock. */
export function minuteIndexOf(unixMs: number): number {
  return Math.floor(unixMs / MS_PER_MINUTE);
}
