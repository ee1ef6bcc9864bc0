import { and, eq, sql } from 'drizzle-orm';
import { CASH_COIN_ID, Decimal } from '../domain/money.js';
import { EMPTY_HOLDING, type Holding } from '../domain/spot.js';
import { queryRows, type Queryable } from './db.js';
import { holdings } from './schema.js';

export interface HoldingRow extends Holding {
  coinId: string;
}

function toHolding(row: typeof holdings.$inferSelect): HoldingRow {
  return {
    coinId: row.coinId,
    available: new Decimal(row.available),
    frozen: new Decimal(row.frozen),
    avgCostUsd: new Decimal(row.avgCostUsd),
  };
}

/** One coin of a book; an empty holding when the book never held it. */
export async function getHolding(db: Queryable, walletId: number, coinId: string): Promise<Holding> {
  const [row] = await db
    .select()
    .from(holdings)
    .where(and(eq(holdings.walletId, walletId), eq(holdings.coinId, coinId)));
  return row ? toHolding(row) : EMPTY_HOLDING;
}

/** Every coin a book holds (available or frozen), by coin id. */
export async function listHoldings(db: Queryable, walletId: number): Promise<HoldingRow[]> {
  const rows = await db
    .select()
    .from(holdings)
    .where(and(eq(holdings.walletId, walletId), sql`(${holdings.available} > 0 or ${holdings.frozen} > 0)`))
    .orderBy(holdings.coinId);
  return rows.map(toHolding);
}

export interface HoldingDiscrepancy {
  walletId: number;
  keyId: number | null;
  coinId: string;
  bucket: string;
  balance: string | null;
  journal: string;
}

/** Every coin bucket whose balance differs from the sum of its journal postings. */
export async function holdingDiscrepancies(db: Queryable): Promise<HoldingDiscrepancy[]> {
  return queryRows<HoldingDiscrepancy>(
    db,
    sql`with sums as (
          select wallet_id, coin_id, bucket, sum(amount) as total from journal_postings
          where coin_id <> ${CASH_COIN_ID} group by wallet_id, coin_id, bucket
        ), balances as (
          select h.wallet_id, h.coin_id, b.bucket, b.balance
          from holdings h
          cross join lateral (values ('available', h.available), ('frozen', h.frozen)) as b(bucket, balance)
        )
        select coalesce(b.wallet_id, s.wallet_id) as "walletId", w.key_id as "keyId",
               coalesce(b.coin_id, s.coin_id) as "coinId", coalesce(b.bucket, s.bucket) as bucket,
               b.balance::text as balance, coalesce(s.total, 0)::text as journal
        from balances b
        full join sums s on s.wallet_id = b.wallet_id and s.coin_id = b.coin_id and s.bucket = b.bucket
        left join wallets w on w.id = coalesce(b.wallet_id, s.wallet_id)
        where b.balance is distinct from coalesce(s.total, 0)
          and not (b.balance is null and coalesce(s.total, 0) = 0)`,
  );
}

/** Units held per coin for many books at once (the equity-snapshot job). */
export async function holdingsByWallet(db: Queryable): Promise<{ walletId: number; coinId: string; units: string; avgCostUsd: string }[]> {
  return queryRows(
    db,
    sql`select wallet_id as "walletId", coin_id as "coinId", (available + frozen)::text as units, avg_cost_usd::text as "avgCostUsd"
        from holdings where available > 0 or frozen > 0`,
  );
}
