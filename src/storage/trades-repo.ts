import type { Decimal } from '../domain/money.js';
import { TRADE_ENTITY_TYPES, type RelatedOutcome } from '../ledger/run-manifest.js';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable, type Tx } from './db.js';
import { closedTrades } from './schema.js';

export type Venue = 'spot' | 'futures' | 'pm';

/** One row of the shared trade log; realizedPnl null = not a decided trade (e.g. a spot buy). */
export interface NewClosedTrade {
  keyId: number;
  walletId: number;
  venue: Venue;
  side: string;
  coinId?: string | null;
  symbol?: string | null;
  market?: string | null;
  outcome?: string | null;
  realizedPnl: Decimal | null;
  closedAtMs: number;
  refType?: string;
  refId?: string;
  detail?: Record<string, unknown>;
}

/** Appends a trade-log row inside the transaction that moved the money; returns its id. */
export async function insertClosedTrade(tx: Tx, trade: NewClosedTrade): Promise<number> {
  const [row] = await tx
    .insert(closedTrades)
    .values({
      keyId: trade.keyId,
      walletId: trade.walletId,
      venue: trade.venue,
      side: trade.side,
      coinId: trade.coinId ?? null,
      symbol: trade.symbol ?? null,
      market: trade.market ?? null,
      outcome: trade.outcome ?? null,
      realizedPnl: trade.realizedPnl === null ? null : trade.realizedPnl.toString(),
      closedAt: new Date(trade.closedAtMs),
      refType: trade.refType ?? null,
      refId: trade.refId ?? null,
      detail: trade.detail ?? {},
    })
    .returning({ id: closedTrades.id });
  return row!.id;
}

/**
 * The key's trade-log rows that belong to these ledger related entities: a spot fill is its
 * own row (`spot_fill:<trade id>`); a resting order, futures position or PM position has a row
 * per fill / close / settlement naming it in ref_type / ref_id.
 */
export async function outcomesOfEntities(db: Queryable, keyId: number, entities: { type: string; id: string }[]): Promise<RelatedOutcome[]> {
  const fills = entities.filter((e) => e.type === 'spot_fill' && /^\d{1,18}$/.test(e.id)).map((e) => e.id);
  const refs = entities.filter((e) => e.type !== 'spot_fill' && TRADE_ENTITY_TYPES.has(e.type)).map((e) => `${e.type}:${e.id}`);
  if (fills.length === 0 && refs.length === 0) return [];
  return queryRows<RelatedOutcome>(
    db,
    sql`select case when ref_type = 'spot_fill' then 'spot_fill:' || id else ref_type || ':' || ref_id end as entity,
               venue, realized_pnl::text as "realizedPnl"
        from closed_trades
        where key_id = ${keyId}
          and ((ref_type = 'spot_fill' and id = any(${`{${fills.join(',')}}`}::bigint[]))
            or (ref_type <> 'spot_fill' and ref_type || ':' || ref_id in (select jsonb_array_elements_text(${JSON.stringify(refs)}::jsonb))))`,
  );
}
