import { cashTotal, Decimal, roundMoney, type CashBalances } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import { bookCacheOf, type Db, type Queryable } from '../storage/db.js';
import { holdingsPart, readBook, toHoldings, type BookPart } from '../storage/book-read-repo.js';
import type { Wallet } from '../storage/books-repo.js';
import { ensureWallet } from './spot-trading.js';
import { adjustmentParts, adjustmentsValue, markCachedAdjustments } from './equity-adjustments.js';

export interface HeldUnits {
  coinId: string;
  units: Decimal;
  avgCostUsd: Decimal;
}

/** A coin's mark: the latest known price (stale or not), else its average cost. */
export function markOf(market: MarketFeed, coinId: string, avgCostUsd: Decimal): Decimal {
  const price = market.price(coinId);
  return price ? new Decimal(price.priceUsd) : avgCostUsd;
}

export function holdingsValue(market: MarketFeed, held: HeldUnits[]): Decimal {
  return held.reduce((sum, h) => sum.plus(h.units.times(markOf(market, h.coinId, h.avgCostUsd))), new Decimal(0));
}

export interface Equity {
  cashTotal: Decimal;
  holdingsUsd: Decimal;
  adjustmentsUsd: Decimal;
  totalUsd: Decimal;
}

/** equity = cash total + spot holdings at mark + Σ venue adjustments (futures, PM). */
export function equityOf(cash: CashBalances, held: HeldUnits[], adjustments: Decimal[], market: MarketFeed): Equity {
  const cashSum = cashTotal(cash);
  // Each part at money precision, so the total is exactly the sum of the parts a client reads.
  const holdingsUsd = roundMoney(holdingsValue(market, held));
  const adjustmentsUsd = roundMoney(adjustments.reduce((a, b) => a.plus(b), new Decimal(0)));
  return { cashTotal: cashSum, holdingsUsd, adjustmentsUsd, totalUsd: cashSum.plus(holdingsUsd).plus(adjustmentsUsd) };
}

export interface ValuedBook<P extends string> {
  wallet: Wallet;
  equity: Equity;
  parts: Record<P, unknown>;
}

/**
 * The key's book valued at mark, plus the route's own parts, in one round trip
 * (null when the key has no book yet).
 */
export async function readValuedBook<P extends string>(
  db: Queryable,
  market: MarketFeed,
  keyId: number,
  parts: Record<P, BookPart>,
): Promise<ValuedBook<P> | null> {
  // With a book cache the read keeps no prices (PM probabilities are read per request).
  const cached = bookCacheOf(db) !== null;
  const read = await readBook(db, keyId, { ...parts, ...adjustmentParts(cached), holdings: holdingsPart });
  if (!read) return null;
  const all = cached ? await markCachedAdjustments(db, read.parts as Record<string, unknown>) : (read.parts as Record<string, unknown>);
  const held = toHoldings(all.holdings).map((h) => ({ coinId: h.coinId, units: h.available.plus(h.frozen), avgCostUsd: h.avgCostUsd }));
  const equity = equityOf(read.wallet, held, adjustmentsValue(all, market), market);
  return { wallet: read.wallet, equity, parts: read.parts };
}

/** One round trip for a key with a book; a key's first read funds its book, then reads. */
export async function readFundedBook<T>(db: Db, keyId: number, read: () => Promise<T | null>): Promise<T> {
  const first = await read();
  if (first !== null) return first;
  await ensureWallet(db, keyId);
  // The book may have been created by another request whose change signal this process has not
  // seen yet (PostgreSQL: it comes on that request's connection): what the cache holds or is
  // reading for the key may predate it ("no book yet"), so the read after this one starts afresh.
  bookCacheOf(db)?.changed(String(keyId));
  const funded = await read();
  if (funded === null) throw new Error(`key ${keyId}: no book after funding it`);
  return funded;
}
