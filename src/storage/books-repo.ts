import { eq, sql } from 'drizzle-orm';
import { CASH_COIN_ID, Decimal, STARTING_CASH_MUSD, type CashBalances, type CashBucket } from '../domain/money.js';
import { queryRows, type Queryable, type Tx } from './db.js';
import { journalPostings, wallets } from './schema.js';

export interface Wallet extends CashBalances {
  id: number;
  keyId: number;
}

export interface CashPosting {
  bucket: CashBucket;
  amount: Decimal;
  reason: string;
  refType?: string;
  refId?: string;
}

const COLUMN = {
  available: wallets.cashAvailable,
  frozen: wallets.cashFrozen,
  frozenPm: wallets.cashFrozenPm,
  frozenFutures: wallets.cashFrozenFutures,
} as const;

function toWallet(row: typeof wallets.$inferSelect): Wallet {
  return {
    id: row.id,
    keyId: row.keyId,
    available: new Decimal(row.cashAvailable),
    frozen: new Decimal(row.cashFrozen),
    frozenPm: new Decimal(row.cashFrozenPm),
    frozenFutures: new Decimal(row.cashFrozenFutures),
  };
}

export async function findWallet(db: Queryable, keyId: number): Promise<Wallet | null> {
  const rows = await db.select().from(wallets).where(eq(wallets.keyId, keyId));
  return rows[0] ? toWallet(rows[0]) : null;
}

/**
 * The key's book, locked for this transaction. Funded with 50,000 mUSD (a journal posting)
 * on first use; concurrent first uses fund it once.
 */
export async function lockWallet(tx: Tx, keyId: number): Promise<Wallet> {
  const created = await tx
    .insert(wallets)
    .values({ keyId, cashAvailable: STARTING_CASH_MUSD.toString(), cashFrozen: '0', cashFrozenPm: '0', cashFrozenFutures: '0' })
    .onConflictDoNothing()
    .returning({ id: wallets.id });
  if (created[0]) {
    await tx.insert(journalPostings).values({
      walletId: created[0].id,
      coinId: CASH_COIN_ID,
      bucket: 'available',
      amount: STARTING_CASH_MUSD.toString(),
      reason: 'funding',
    });
  }
  const [row] = await tx.select().from(wallets).where(eq(wallets.keyId, keyId)).for('update');
  return toWallet(row!);
}

/** Applies cash postings to a locked wallet: balances and journal move together. */
export async function postCash(tx: Tx, walletId: number, postings: CashPosting[]): Promise<void> {
  if (postings.length === 0) return;
  const delta = new Map<CashBucket, Decimal>();
  for (const p of postings) delta.set(p.bucket, (delta.get(p.bucket) ?? new Decimal(0)).plus(p.amount));
  const set: Record<string, unknown> = {};
  for (const [bucket, amount] of delta) {
    const column = COLUMN[bucket];
    set[bucketKey(bucket)] = sql`${column} + ${amount.toString()}::numeric`;
  }
  await tx.update(wallets).set(set).where(eq(wallets.id, walletId));
  await tx.insert(journalPostings).values(
    postings.map((p) => ({
      walletId,
      coinId: CASH_COIN_ID,
      bucket: p.bucket,
      amount: p.amount.toString(),
      reason: p.reason,
      refType: p.refType ?? null,
      refId: p.refId ?? null,
    })),
  );
}

function bucketKey(bucket: CashBucket): keyof typeof wallets.$inferInsert {
  return ({ available: 'cashAvailable', frozen: 'cashFrozen', frozenPm: 'cashFrozenPm', frozenFutures: 'cashFrozenFutures' } as const)[bucket];
}

export interface BookDiscrepancy {
  walletId: number;
  keyId: number;
  bucket: string;
  balance: string;
  journal: string;
}

/** Every cash bucket whose balance differs from the sum of its journal postings. */
export async function cashDiscrepancies(db: Queryable): Promise<BookDiscrepancy[]> {
  return queryRows<BookDiscrepancy>(
    db,
    sql`with sums as (
          select wallet_id, bucket, sum(amount) as total from journal_postings
          where coin_id = ${CASH_COIN_ID} group by wallet_id, bucket
        ), balances as (
          select w.id as wallet_id, w.key_id, b.bucket, b.balance
          from wallets w
          cross join lateral (values ('available', w.cash_available), ('frozen', w.cash_frozen),
                                     ('frozenPm', w.cash_frozen_pm), ('frozenFutures', w.cash_frozen_futures)) as b(bucket, balance)
        )
        select b.wallet_id as "walletId", b.key_id as "keyId", b.bucket, b.balance::text as balance,
               coalesce(s.total, 0)::text as journal
        from balances b left join sums s on s.wallet_id = b.wallet_id and s.bucket = b.bucket
        where b.balance <> coalesce(s.total, 0)
        union all
        select s.wallet_id, null, s.bucket, null, s.total::text from sums s
        where s.bucket not in ('available', 'frozen', 'frozenPm', 'frozenFutures')`,
  );
}

export async function countWallets(db: Queryable): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from wallets`);
  return row?.n ?? 0;
}
