import type { MarketFeed } from '../marketdata/feed.js';
import type { Database } from '../storage/db.js';
import { coinsInBooks, snapshotAllBooks, type Mark } from '../storage/equity-snapshots-repo.js';

/** Often enough that the day's last value is close to its end-of-day equity. */
export const EQUITY_SNAPSHOT_INTERVAL_MS = 15 * 60_000;

/**
 * Writes every live book's equity (the same valuation as the portfolio) as today's UTC
 * snapshot, overwriting earlier values of the same day: each day keeps its last value.
 * Two round trips whatever the number of books: the coins held, then one INSERT … SELECT.
 */
export async function snapshotEquity(database: Database, market: MarketFeed, nowMs: number): Promise<number> {
  const db = database.db;
  const marks: Mark[] = [];
  for (const coinId of await coinsInBooks(db)) {
    const price = market.price(coinId);
    if (price) marks.push({ coinId, price: String(price.priceUsd) });
  }
  return snapshotAllBooks(db, new Date(nowMs).toISOString().slice(0, 10), new Date(nowMs), marks);
}
