/**
 * Venue adjustments to a book's equity, beyond cash and spot holdings at mark
 * (supplement 2.1): each venue that holds value outside the cash total adds one entry
 * here — the rows it needs, read in the account read's single round trip, and a pure
 * valuation of them. Futures: Σ unrealized PnL (the margin already sits in cash
 * `frozenFutures`). PM: Σ (mark value − stake) (the stake already sits in cash `frozenPm`).
 * Used by GET /api/agent/portfolio and the equity curve's live point; the snapshot job
 * values the same rows in SQL (src/storage/equity-snapshots-repo.ts, kept equal by a test).
 */
import type { Decimal } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import { openFuturesPart, openPmHeldPart, openPmPart, pmOutcomeProbabilities, type BookPart, type HeldPmPart } from '../storage/book-read-repo.js';
import type { Queryable } from '../storage/db.js';
import { valueOpenFutures } from './futures-equity.js';
import { valueOpenPm } from './pm-trading-equity.js';

export interface EquityAdjustment {
  /** the rows the valuation needs, as a JSON sub-select over the book row */
  rows: BookPart;
  /**
   * When the rows read from the database carry a price (PM probabilities live in pm_markets),
   * the book cache keeps these price-free rows instead and `mark` prices them per request.
   */
  cached?: { rows: BookPart; mark(db: Queryable, rows: unknown): Promise<unknown> };
  value(rows: unknown, market: MarketFeed): Decimal;
}

export const equityAdjustments: EquityAdjustment[] = [
  { rows: openFuturesPart, value: (rows, market) => valueOpenFutures(rows as Parameters<typeof valueOpenFutures>[0], market) },
  {
    rows: openPmPart,
    cached: {
      rows: openPmHeldPart,
      async mark(db, rows) {
        const held = rows as HeldPmPart[];
        const probabilities = await pmOutcomeProbabilities(db, held);
        return held.map((h, i) => ({ side: h.side, stakeMusd: h.stakeMusd, sharesMusd: h.sharesMusd, outcomeProbability: probabilities[i] ?? null }));
      },
    },
    value: (rows) => valueOpenPm(rows as Parameters<typeof valueOpenPm>[0]),
  },
];

/** The book parts of every adjustment, named `adj0`, `adj1`, … for readBook (`cached`: the book cache's price-free rows). */
export function adjustmentParts(cached = false): Record<string, BookPart> {
  return Object.fromEntries(equityAdjustments.map((a, i) => [`adj${i}`, cached && a.cached ? a.cached.rows : a.rows]));
}

/** Prices the price-free rows of a cached read (a new object; the cached one is shared). */
export async function markCachedAdjustments(db: Queryable, parts: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = { ...parts };
  for (const [i, a] of equityAdjustments.entries()) {
    if (a.cached) out[`adj${i}`] = await a.cached.mark(db, parts[`adj${i}`]);
  }
  return out;
}

/** Σ adjustments, from the parts readBook returned. */
export function adjustmentsValue(parts: Record<string, unknown>, market: MarketFeed): Decimal[] {
  return equityAdjustments.map((a, i) => a.value(parts[`adj${i}`], market));
}
