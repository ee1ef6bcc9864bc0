import { futuresPriceToWire, toWire } from '../../domain/money.js';
import type { Queryable } from '../../storage/db.js';
import { futuresForExport } from '../../storage/futures-repo.js';

/** Prices as positions/futures sends them (12 significant digits). */
const price = (v: string | null): number | null => (v === null ? null : futuresPriceToWire(v));
const money = (v: string | null): number | null => (v === null ? null : toWire(v));
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * The ledger export's `futures[]` and `futuresEvents[]` (supplement 2.6), up to `limit` each,
 * newest first: the key's newest positions and position moves, or — for a filtered export —
 * only the positions `positionIds` names (those its ledger rows reference) and their moves.
 */
export async function futuresExport(db: Queryable, keyId: number, limit: number, positionIds?: readonly number[]) {
  const { positions, events } = await futuresForExport(db, keyId, limit, positionIds);
  return {
    futures: positions.map((p) => {
      const freshness = p.freshnessAtEntry as { asOf?: string | null; ageSeconds?: number | null; status?: string | null };
      return {
        id: p.id,
        coinSymbol: p.symbol,
        side: p.side,
        leverage: Number(p.leverage),
        entryPrice: futuresPriceToWire(p.entryPrice),
        marginMusd: toWire(p.margin),
        notionalMusd: toWire(Number(p.margin) * Number(p.leverage)),
        sizeCoin: toWire(p.sizeCoin),
        maintenanceMarginRate: Number(p.maintenanceMarginRate),
        liquidationPrice: futuresPriceToWire(p.liquidationPrice),
        stopLossPrice: price(p.stopLossPrice),
        takeProfitPrice: price(p.takeProfitPrice),
        entryPriceAsOf: freshness.asOf ?? null,
        entryFreshnessAgeSeconds: freshness.ageSeconds ?? null,
        entryFreshnessStatus: freshness.status ?? null,
        status: p.status,
        exitPrice: price(p.exitPrice),
        exitReason: p.exitReason,
        realizedPnlMusd: money(p.realizedPnl),
        fillModel: null,
        idempotencyKey: p.idempotencyKey,
        openedAt: iso(p.openedAt),
        closedAt: iso(p.closedAt),
        createdAt: p.createdAt.toISOString(),
      };
    }),
    futuresEvents: events.map((e) => ({
      id: e.id,
      positionId: e.positionId,
      type: e.type,
      sizeDeltaCoin: toWire(e.sizeDeltaCoin),
      markPrice: price(e.markPrice),
      fillPrice: price(e.fillPrice),
      // Reference: a plain number — 0 on events that realize nothing (open, add, sl_tp_set).
      realizedPnlMusd: money(e.realizedPnl) ?? 0,
      marginDeltaMusd: toWire(e.marginDelta),
      feeMusd: toWire(e.fee),
      slippageMusd: toWire(e.slippage),
      executionVersion: e.executionVersion,
      idempotencyKey: e.idempotencyKey,
      createdAt: e.createdAt.toISOString(),
    })),
  };
}
