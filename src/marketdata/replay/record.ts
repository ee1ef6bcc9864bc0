/**
 * Records a tape from a market that implements MarketReads: one snapshot of every coin
 * every `everySeconds`, written as it is taken (a long recording can be stopped and still
 * replays what it holds).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { MarketReads } from '../reads.js';
import { FIAT_CODES } from '../sim/fiat.js';
import type { QuoteInput, SnapshotInput } from '../live/sample-market.js';
import { formatHeader, formatSnapshot } from './tape.js';

/**
 * Every coin's figures now, as a tape snapshot (fiat rates only when asked). A coin whose
 * price has not changed its asOf since `seenAsOf` recorded it is left out, so a source
 * that stopped shows up as stale in the replay too.
 */
export function snapshotOf(market: MarketReads, tMs: number, withFiat: boolean, seenAsOf: Map<string, number> = new Map()): SnapshotInput {
  const quotes: Record<string, QuoteInput> = {};
  for (const coin of market.coins()) {
    const q = market.quote(coin.coinId);
    if (!q || seenAsOf.get(coin.coinId) === q.asOfMs) continue;
    seenAsOf.set(coin.coinId, q.asOfMs);
    quotes[coin.coinId] = {
      priceUsd: q.priceUsd,
      volume24hUsd: q.volume24hUsd,
      marketCapUsd: q.marketCapUsd,
      change1h: q.change1h,
      change24h: q.change24h,
      change7d: q.change7d,
      bullishVotes: q.sentiment.bullishVotes,
      bearishVotes: q.sentiment.bearishVotes,
    };
  }
  let fiat: Record<string, number> | null = null;
  if (withFiat) {
    fiat = {};
    for (const code of FIAT_CODES) {
      const rate = market.fiatRate(code);
      if (rate !== null) fiat[code] = rate;
    }
  }
  return { tMs, quotes, fearGreed: market.fearGreed(), fiat };
}

export interface RecordOptions {
  market: MarketReads;
  /** Moves the market to an instant before it is read (SimMarket.advanceTo, or a live poll). */
  advanceTo: (tMs: number) => void | Promise<void>;
  out: string;
  source: string;
  startMs: number;
  minutes: number;
  everySeconds: number;
  /** Waits until the wall clock reaches an instant before taking it; absent = as fast as possible. */
  waitUntil?: (tMs: number) => Promise<void>;
  say?: (line: string) => void;
}

/** Writes the tape; returns the number of snapshots. */
export async function recordTape(options: RecordOptions): Promise<number> {
  const { market, out, startMs, minutes, everySeconds } = options;
  const stepMs = everySeconds * 1000;
  const endMs = startMs + minutes * 60_000;
  const total = Math.floor((endMs - startMs) / stepMs) + 1;
  const fd = openSync(out, 'w');
  try {
    writeSync(fd, `${formatHeader({ source: options.source, recordedAt: new Date(startMs).toISOString(), startMs, endMs, coins: market.coins().length, everySeconds })}\n`);
    let lastMinute = -1;
    const seenAsOf = new Map<string, number>();
    let lastReport = 0;
    for (let k = 0; k < total; k += 1) {
      const tMs = startMs + k * stepMs;
      if (options.waitUntil) await options.waitUntil(tMs);
      await options.advanceTo(tMs);
      const minute = Math.floor(tMs / 60_000);
      writeSync(fd, `${formatSnapshot(snapshotOf(market, tMs, minute !== lastMinute, seenAsOf))}\n`);
      lastMinute = minute;
      const pct = Math.floor(((k + 1) * 10) / total) * 10;
      if (pct > lastReport) {
        lastReport = pct;
        options.say?.(`  recorded ${k + 1}/${total} snapshots (${pct} %)`);
      }
    }
    return total;
  } finally {
    closeSync(fd);
  }
}
