import { decideOpen } from '../../domain/futures/decisions.js';
import type { FuturesSide } from '../../domain/futures/position-math.js';
import { Decimal, orderAmount } from '../../domain/money.js';
import type { CoinRef } from '../../domain/coin-ref.js';
import { blocked } from '../../http/errors.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import type { Db } from '../../storage/db.js';
import { WRITE_LOCK_TIMEOUT_MS, type FuturesPositionRow } from '../../storage/futures-repo.js';
import { runTradeWrite } from '../trade-write.js';
import { readMark } from './mark.js';
import { positionView } from './view.js';

export interface OpenRequest {
  keyId: number;
  coin: CoinRef;
  side: FuturesSide;
  leverage: number;
  marginMusd: number;
  stopLossPrice?: number | null;
  takeProfitPrice?: number | null;
  idempotencyKey: string;
}

export interface Opened {
  /** 201 new position, 200 added to the open one (or a replay). */
  statusCode: number;
  body: { position: ReturnType<typeof positionView> };
  replay: boolean;
}

const dec = (v: number | null | undefined): Decimal | null => (v === null || v === undefined ? null : new Decimal(v));

/**
 * Opens or adds to the key's one position on a coin, idempotent by (key, idempotencyKey):
 * one read (book, open position, prior record), decideOpen, one write. Every refusal is a
 * 422 `futures_entry_blocked`.
 */
export async function openFuturesPosition(
  db: Db,
  market: Pick<MarketFeed, 'price'>,
  nowMs: number,
  req: OpenRequest,
  idempotency: { route: string; body: Record<string, unknown> },
): Promise<Opened> {
  const refuse = (reasons: string[]) =>
    blocked(422, 'futures_entry_blocked', reasons, `the futures entry was refused: ${reasons.join(', ')}`);
  const read = readMark(market, req.coin.coinId, nowMs);
  const result = await runTradeWrite(db, {
    read: { keyId: req.keyId, openPositionCoinId: req.coin.coinId },
    idempotency: { idempotencyKey: req.idempotencyKey, ...idempotency },
    lockTimeoutMs: WRITE_LOCK_TIMEOUT_MS,
    decide: (book) => {
      if (read.problem || !read.mark) throw refuse([read.problem ?? 'price_unavailable']);
      const decision = decideOpen(
        {
          keyId: req.keyId,
          walletId: book.wallet.id,
          coin: req.coin,
          side: req.side,
          leverage: new Decimal(req.leverage),
          margin: orderAmount(req.marginMusd),
          stopLoss: dec(req.stopLossPrice),
          takeProfit: dec(req.takeProfitPrice),
          idempotencyKey: req.idempotencyKey,
          mark: read.mark,
          freshness: { ...read.freshness },
          nowMs,
        },
        book.wallet.available,
        book.position ?? null,
      );
      if (decision.kind === 'refused') throw refuse(decision.blockReasons);
      const row = { ...decision.row, id: decision.row.id ?? 0 } as FuturesPositionRow;
      return {
        effects: decision.effects,
        statusCode: decision.added ? 200 : 201,
        body: { position: positionView(row, read.mark) },
        idPaths: decision.added ? [] : [{ path: ['position', 'id'], from: 'position' as const }],
        result: null,
      };
    },
  });
  return { statusCode: result.statusCode, body: result.body as Opened['body'], replay: result.replay };
}
