/**
 * Order book and trade tape of one market (reference A6, A7), polymarket and kalshi only.
 * We store each market's best bid/ask, liquidity and cumulative volume per capture, not full
 * books or tapes, so depth is modeled from the stored top of book and the tape is the volume
 * traded between captures plus the large prints; both say so in `basis`.
 */
import type { PmMarketRow, PmWhaleRow } from '../../storage/pm-repo.js';
import { leaderIndex } from '../spark.js';
import type { OutcomeQuote } from '../types.js';

export const MICROSTRUCTURE_VENUES = new Set(['polymarket', 'kalshi']);
export const TAPE_LIMIT = 20;
const BOOK_LEVELS = 5;
const TICK = 0.01;

/** The outcome the book and tape describe: the same one price history describes. */
export function microOutcome(row: PmMarketRow): OutcomeQuote | null {
  const o = row.outcomes as OutcomeQuote[];
  return o[leaderIndex(row, o.map((x) => x.probability))] ?? null;
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * Depth levels from the best price (the first level is `bid` / `ask` exactly) stepping away by
 * one tick, sizes growing with distance; prices within (0, 1].
 */
function levels(best: number, direction: 1 | -1, liquidity: number): { price: number; size: number }[] {
  const out: { price: number; size: number }[] = [];
  for (let k = 0; k < BOOK_LEVELS; k++) {
    const price = round(best + direction * k * TICK, 4);
    if (price <= 0 || price > 1) break;
    out.push({ price, size: round((liquidity * 0.02 * (1 + k)) / price, 0) });
  }
  return out;
}

export function orderBookOf(row: PmMarketRow, receivedAt: string | null): Record<string, unknown> | null {
  const leg = microOutcome(row);
  if (!leg || row.status !== 'open' || (leg.bid === null && leg.ask === null)) return null;
  const bid = leg.bid === null ? null : round(leg.bid / 100, 4);
  const ask = leg.ask === null ? null : round(leg.ask / 100, 4);
  const book: Record<string, unknown> = {
    bid,
    ask,
    spread: bid !== null && ask !== null ? round(ask - bid, 4) : null,
    midpoint: bid !== null && ask !== null ? round((bid + ask) / 2, 4) : null,
    bids: bid === null ? [] : levels(bid, -1, row.liquidity),
    asks: ask === null ? [] : levels(ask, 1, row.liquidity),
    basis: 'modeled_from_top_of_book',
  };
  if (row.source === 'polymarket') book.askEvidence = { validated: ask !== null, receivedAt: receivedAt ?? new Date(0).toISOString() };
  return book;
}

interface Capture {
  capturedAt: Date;
  probabilities: number[];
  volume: number;
}

/** Newest first, at most 20: one print per capture interval with new volume, and the large prints. */
export function tapeOf(row: PmMarketRow, captures: Capture[], whales: PmWhaleRow[]): Record<string, unknown>[] {
  const o = row.outcomes as OutcomeQuote[];
  const li = leaderIndex(row, o.map((x) => x.probability));
  const leg = o[li];
  const prints: (Record<string, unknown> & { at: number })[] = [];
  for (let i = 0; i + 1 < captures.length; i++) {
    const now = captures[i]!;
    const before = captures[i + 1]!;
    const traded = now.volume - before.volume;
    const p = (now.probabilities[li] ?? 0) / 100;
    if (traded <= 0 || p <= 0) continue;
    const up = (now.probabilities[li] ?? 0) >= (before.probabilities[li] ?? 0);
    prints.push({
      at: now.capturedAt.getTime(),
      side: row.source === 'kalshi' ? (up ? 'yes' : 'no') : up ? 'buy' : 'sell',
      price: round(p, 4),
      size: round(traded / p, 2),
      usdValue: round(traded, 2),
      outcome: leg?.name ?? null,
      who: null,
      timestamp: now.capturedAt.toISOString(),
      basis: 'capture_volume_delta',
    });
  }
  for (const w of whales) {
    prints.push({
      at: w.tradedAt.getTime(),
      side: row.source === 'kalshi' ? (w.side === 'buy' ? 'yes' : 'no') : w.side,
      price: w.price,
      size: round(w.usdValue / Math.max(w.price, 0.0001), 2),
      usdValue: w.usdValue,
      outcome: w.outcome,
      who: row.source === 'kalshi' ? null : w.traderName,
      timestamp: w.tradedAt.toISOString(),
      basis: 'large_print',
    });
  }
  return prints
    .sort((a, b) => b.at - a.at)
    .slice(0, TAPE_LIMIT)
    .map(({ at: _at, ...trade }) => trade);
}
