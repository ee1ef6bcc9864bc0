import type { Coin } from '../coins.js';
import { coinDynamics, type CoinDynamics } from './coin-dynamics.js';
import { MINUTES_PER_DAY, SIM_PROFILES, type SimParams, type SimProfileName } from './params.js';
import { seedKey, streamKeyFrom, type SimSeed } from './random.js';

/**
 * Everything static about one simulation (coins, seed, parameters), laid out as
 * columns so the per-minute loop touches typed arrays only. Built once at start.
 */
export interface SimUniverse {
  readonly seed: SimSeed;
  readonly seedKey: number;
  readonly params: Readonly<SimParams>;
  readonly coins: readonly Coin[];
  readonly dynamics: readonly CoinDynamics[];
  readonly indexById: ReadonlyMap<string, number>;
  /** Index of BTC (coinId "1"), or -1 when the universe has no BTC. */
  readonly btcIndex: number;
  readonly marketStream: number;
  readonly marketMinuteVol: number;
  readonly marketTrendPerMinute: number;
  // Per-coin columns, indexed like `coins`.
  readonly isStable: Uint8Array;
  readonly beta: Float64Array;
  readonly idioMinuteVol: Float64Array;
  /** Log-drift per minute of the coin's own part in a trending regime. */
  readonly ownTrendPerMinute: Float64Array;
  /** Long-run total per-minute volatility; returns are standardised with it. */
  readonly totalMinuteVol: Float64Array;
  readonly anchorPrice: Float64Array;
  readonly baseVolume: Float64Array;
  readonly votesPerMinute: Float64Array;
  readonly priceStreams: Uint32Array;
  readonly tickStreams: Uint32Array;
  readonly initStreams: Uint32Array;
}

const SQRT_MINUTES_PER_DAY = Math.sqrt(MINUTES_PER_DAY);

export function createSimUniverse(
  coins: readonly Coin[],
  seed: SimSeed,
  profile: SimProfileName | SimParams = 'realistic',
): SimUniverse {
  const params = typeof profile === 'string' ? SIM_PROFILES[profile] : profile;
  if (params === undefined) throw new RangeError(`unknown sim profile ${String(profile)}`);
  const key = seedKey(seed);
  const scale = params.volatilityScale;
  const dynamics = coins.map((coin) => coinDynamics(coin, params.marketDailyVol));
  const indexById = new Map<string, number>();
  coins.forEach((coin, i) => {
    if (indexById.has(coin.coinId)) throw new RangeError(`duplicate coinId ${coin.coinId}`);
    indexById.set(coin.coinId, i);
  });
  const column = (f: (d: CoinDynamics, c: Coin) => number): Float64Array =>
    Float64Array.from(dynamics, (d, i) => f(d, coins[i]!));
  const streams = (purpose: string): Uint32Array =>
    Uint32Array.from(coins, (c) => streamKeyFrom(key, `${purpose}:${c.coinId}`));
  return {
    seed,
    seedKey: key,
    params,
    coins,
    dynamics,
    indexById,
    btcIndex: indexById.get('1') ?? -1,
    marketStream: streamKeyFrom(key, 'market'),
    marketMinuteVol: (params.marketDailyVol * scale) / SQRT_MINUTES_PER_DAY,
    marketTrendPerMinute: (params.trendDriftPerDailyVol * params.marketDailyVol * scale) / MINUTES_PER_DAY,
    isStable: Uint8Array.from(dynamics, (d) => (d.kind === 'stable' ? 1 : 0)),
    beta: column((d) => d.beta),
    idioMinuteVol: column((d) => (d.idioDailyVol * scale) / SQRT_MINUTES_PER_DAY),
    ownTrendPerMinute: column((d) => (params.trendDriftPerDailyVol * d.idioDailyVol * scale) / MINUTES_PER_DAY),
    totalMinuteVol: column((d) =>
      d.kind === 'stable' ? params.stableMinuteNoise : (d.totalDailyVol * scale) / SQRT_MINUTES_PER_DAY,
    ),
    anchorPrice: column((_d, c) => c.priceUsd),
    baseVolume: column((d) => d.baseVolume24hUsd),
    votesPerMinute: column((d) => d.dailyVotes / MINUTES_PER_DAY),
    priceStreams: streams('price'),
    tickStreams: streams('tick'),
    initStreams: streams('init'),
  };
}
