import type { Coin } from '../coins.js';
import { coinKind, type CoinKind } from './coin-kind.js';
import { hashString, hashToUnit } from './random.js';

/** Static, seed-independent character of one coin: how it reacts to the market and how wild it is. */
export interface CoinDynamics {
  kind: CoinKind;
  /** Sensitivity of the coin's log-return to the market factor's. */
  beta: number;
  /** Target daily volatility of the coin in total (market part + own part). */
  totalDailyVol: number;
  /** Daily volatility of the coin's own (idiosyncratic) part. */
  idioDailyVol: number;
  /** Community sentiment votes cast per day on an average day. */
  dailyVotes: number;
  /** Rolling 24 h USD volume the coin's volume reverts to at its starting price. */
  baseVolume24hUsd: number;
}

// Real-world ballparks: BTC ~3 %/day, large caps 4-5 %, small caps 7-8 %, memes more.
function tierDailyVol(rank: number): number {
  if (rank <= 10) return 0.045;
  if (rank <= 50) return 0.055;
  if (rank <= 100) return 0.062;
  if (rank <= 200) return 0.07;
  return 0.08;
}

/** A per-coin number in (0, 1), stable across seeds so BTC and ETH keep their character. */
function coinJitter(coinId: string, purpose: string): number {
  return hashToUnit(hashString(`${purpose}:${coinId}`));
}

function votesPerDay(rank: number): number {
  return Math.max(50, Math.round(40_000 * rank ** -0.7));
}

function baseVolume(coin: Coin): number {
  // A few rows report zero volume; give them a thin but non-zero market.
  return Math.max(coin.volume24hUsd, coin.marketCapUsd * 1e-4, 1_000);
}

export function coinDynamics(coin: Coin, marketDailyVol: number): CoinDynamics {
  const kind = coinKind(coin);
  const common = { kind, dailyVotes: votesPerDay(coin.rank), baseVolume24hUsd: baseVolume(coin) };
  if (kind === 'stable') return { ...common, beta: 0, totalDailyVol: 0, idioDailyVol: 0 };
  let beta: number;
  let total: number;
  if (kind === 'gold') {
    beta = 0.05;
    total = 0.011;
  } else if (coin.coinId === '1') {
    beta = 1; // BTC is the market factor's main driver
    total = marketDailyVol * 1.07;
  } else if (coin.coinId === '1027') {
    beta = 1.15;
    total = marketDailyVol * 1.4;
  } else {
    const meme = coin.categories.some((c) => /meme/i.test(c));
    beta = 0.7 + 0.5 * coinJitter(coin.coinId, 'beta') + (meme ? 0.2 : 0);
    total = tierDailyVol(coin.rank) * (0.85 + 0.3 * coinJitter(coin.coinId, 'vol')) * (meme ? 1.35 : 1);
  }
  // The own part fills the gap to the total, but never below a third of it.
  const marketPart = beta * marketDailyVol;
  const idio = Math.sqrt(Math.max(total * total - marketPart * marketPart, (total / 3) ** 2));
  return { ...common, beta, totalDailyVol: Math.sqrt(marketPart * marketPart + idio * idio), idioDailyVol: idio };
}
