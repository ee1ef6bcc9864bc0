import { Decimal } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import { computeEquity, type HeldUnits } from '../services/equity.js';
import type { Database } from '../storage/db.js';
import { listBooks, upsertSnapshot } from '../storage/account-repo.js';
import { holdingsByWallet } from '../storage/holdings-repo.js';

/** Often enough that the day's last value is close to its end-of-day equity. */
export const EQUITY_SNAPSHOT_INTERVAL_MS = 15 * 60_000;

/**
 * Writes every live book's equity (the same computation as the portfolio) as today's UTC
 * snapshot, overwriting earlier values of the same day: each day keeps its last value.
 */
export async function snapshotEquity(database: Database, market: MarketFeed, nowMs: number): Promise<number> {
  const db = database.db;
  const [books, held] = await Promise.all([listBooks(db), holdingsByWallet(db)]);
  const byWallet = new Map<number, HeldUnits[]>();
  for (const h of held) {
    const list = byWallet.get(h.walletId) ?? [];
    list.push({ coinId: h.coinId, units: new Decimal(h.units), avgCostUsd: new Decimal(h.avgCostUsd) });
    byWallet.set(h.walletId, list);
  }
  const day = new Date(nowMs).toISOString().slice(0, 10);
  for (const book of books) {
    const cash = {
      available: new Decimal(book.available),
      frozen: new Decimal(book.frozen),
      frozenPm: new Decimal(book.frozenPm),
      frozenFutures: new Decimal(book.frozenFutures),
    };
    const equity = await computeEquity(db, market, book.keyId, cash, byWallet.get(book.walletId) ?? [], nowMs);
    await upsertSnapshot(db, book.keyId, day, equity.totalUsd.toString(), new Date(nowMs));
  }
  return books.length;
}
