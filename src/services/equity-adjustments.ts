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
import { openFuturesPart, openPmPart, type BookPart } from '../storage/book-read-repo.js';
import { valueOpenFutures } from './futures-equity.js';
import { valueOpenPm } from './pm-trading-equity.js';

export interface EquityAdjustment {
  /** the rows the valuation needs, as a JSON sub-select over the book row */
  rows: BookPart;
  value(rows: unknown, market: MarketFeed): Decimal;
}

export const equityAdjustments: EquityAdjustment[] = [
  { rows: openFuturesPart, value: (rows, market) => valueOpenFutures(rows as Parameters<typeof valueOpenFutures>[0], market) },
  { rows: openPmPart, value: (rows) => valueOpenPm(rows as Parameters<typeof valueOpenPm>[0]) },
];

/** The book parts of every adjustment, named `adj0`, `adj1`, … for readBook. */
export function adjustmentParts(): Record<string, BookPart> {
  return Object.fromEntries(equityAdjustments.map((a, i) => [`adj${i}`, a.rows]));
}

/** Σ adjustments, from the parts readBook returned. */
export function adjustmentsValue(parts: Record<string, unknown>, market: MarketFeed): Decimal[] {
  return equityAdjustments.map((a, i) => a.value(parts[`adj${i}`], market));
}
