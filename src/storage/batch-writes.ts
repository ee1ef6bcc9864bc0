/**
 * Batched forms of `postCash` (books-repo) and `insertClosedTrade` (trades-repo) for jobs
 * that settle hundreds of positions in one transaction: the same rows, a few statements
 * instead of a few per position. Wallets must already be locked by the caller.
 */
import { sql } from 'drizzle-orm';
import { CASH_COIN_ID, Decimal, type CashBucket } from '../domain/money.js';
import type { CashPosting } from './books-repo.js';
import type { Tx } from './db.js';
import { closedTrades, journalPostings } from './schema.js';
import type { NewClosedTrade } from './trades-repo.js';

const INSERT_CHUNK = 1000;

/** Applies every wallet's postings: one UPDATE of the balances, then the journal rows. */
export async function postCashMany(tx: Tx, entries: { walletId: number; postings: CashPosting[] }[]): Promise<void> {
  const deltas = new Map<number, Record<CashBucket, Decimal>>();
  const rows: (typeof journalPostings.$inferInsert)[] = [];
  for (const { walletId, postings } of entries) {
    const d = deltas.get(walletId) ?? { available: new Decimal(0), frozen: new Decimal(0), frozenPm: new Decimal(0), frozenFutures: new Decimal(0) };
    for (const p of postings) {
      d[p.bucket] = d[p.bucket].plus(p.amount);
      rows.push({ walletId, coinId: CASH_COIN_ID, bucket: p.bucket, amount: p.amount.toString(), reason: p.reason, refType: p.refType ?? null, refId: p.refId ?? null });
    }
    deltas.set(walletId, d);
  }
  if (rows.length === 0) return;
  const json = JSON.stringify(
    [...deltas].map(([walletId, d]) => ({
      wallet_id: walletId,
      available: d.available.toString(),
      frozen: d.frozen.toString(),
      frozen_pm: d.frozenPm.toString(),
      frozen_futures: d.frozenFutures.toString(),
    })),
  );
  await tx.execute(sql`
    update wallets w set
      cash_available = w.cash_available + d.available,
      cash_frozen = w.cash_frozen + d.frozen,
      cash_frozen_pm = w.cash_frozen_pm + d.frozen_pm,
      cash_frozen_futures = w.cash_frozen_futures + d.frozen_futures
    from jsonb_to_recordset(${json}::jsonb) as d(wallet_id int, available numeric, frozen numeric, frozen_pm numeric, frozen_futures numeric)
    where w.id = d.wallet_id`);
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insert(journalPostings).values(rows.slice(i, i + INSERT_CHUNK));
}

/** Appends many trade-log rows (same shape as insertClosedTrade). */
export async function insertClosedTradesMany(tx: Tx, trades: NewClosedTrade[]): Promise<void> {
  const rows = trades.map((t) => ({
    keyId: t.keyId,
    walletId: t.walletId,
    venue: t.venue,
    side: t.side,
    coinId: t.coinId ?? null,
    symbol: t.symbol ?? null,
    market: t.market ?? null,
    outcome: t.outcome ?? null,
    realizedPnl: t.realizedPnl === null ? null : t.realizedPnl.toString(),
    closedAt: new Date(t.closedAtMs),
    refType: t.refType ?? null,
    refId: t.refId ?? null,
    detail: t.detail ?? {},
  }));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insert(closedTrades).values(rows.slice(i, i + INSERT_CHUNK));
}
