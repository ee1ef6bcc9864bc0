import { decideTriggers, type TriggerChange } from '../../domain/futures/decisions.js';
import { blocked } from '../../http/errors.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import type { Db } from '../../storage/db.js';
import { WRITE_LOCK_TIMEOUT_MS, type FuturesPositionRow } from '../../storage/futures-repo.js';
import { runTradeWrite } from '../trade-write.js';
import { noMark, ownOpenPosition } from './close.js';
import { readMark } from './mark.js';
import { positionView } from './view.js';

export interface SlTpRequest extends TriggerChange {
  keyId: number;
  positionId: number;
}

/**
 * Sets or clears the resting triggers: one read, decideTriggers, one write. Prices being set
 * are checked against the current fresh mark and the liquidation price (long
 * `liq < SL < mark < TP`, short mirrored).
 */
export async function setTriggers(db: Db, market: Pick<MarketFeed, 'price'>, nowMs: number, req: SlTpRequest): Promise<{ position: ReturnType<typeof positionView> }> {
  const result = await runTradeWrite(db, {
    read: { keyId: req.keyId, positionId: req.positionId },
    lockTimeoutMs: WRITE_LOCK_TIMEOUT_MS,
    decide: (book) => {
      const row = ownOpenPosition(book, req.positionId);
      const read = readMark(market, row.coinId, nowMs);
      const mark = read.problem ? null : read.mark;
      const decision = decideTriggers(row, req, mark, nowMs);
      if (decision.kind === 'no_mark') throw noMark(row.coinId);
      if (decision.kind === 'refused') {
        throw blocked(422, 'sl_tp_invalid', decision.blockReasons, `the stop-loss / take-profit is invalid: ${decision.blockReasons.join(', ')}`);
      }
      if (decision.kind === 'unchanged') return { noWrite: true, statusCode: 200, body: { position: positionView(row, mark) }, result: null };
      return { effects: decision.effects, statusCode: 200, body: { position: positionView(decision.row as FuturesPositionRow, mark) }, result: null };
    },
  });
  return result.body as { position: ReturnType<typeof positionView> };
}
