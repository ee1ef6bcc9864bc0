import type { Decimal } from '../domain/money.js';
import type { Tx } from './db.js';
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
