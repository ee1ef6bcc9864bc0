/**
 * PM settlement job (supplement 3.5): every resolved or voided market that still has open
 * positions is settled set-based, a batch per transaction, until none is left.
 */
import type { Database } from '../storage/db.js';
import { systemClock, type Clock } from '../util/clock.js';
import { resolvedMarketsWithOpenPositions, settleMarketBatch, staleMarketsWithOpenPositions } from '../storage/pm-positions-repo.js';

export const PM_SETTLEMENT_INTERVAL_MS = 60_000;
/**
 * A market still unresolved this long after its end time is voided for paper positions (stakes
 * refunded): its venue stopped listing it or never reported an outcome, and the stakes would
 * otherwise stay frozen for good. Long enough for slow venue resolutions (disputes) to land first.
 */
export const PM_UNRESOLVED_VOID_AFTER_MS = 30 * 86_400_000;

/**
 * Settles every open position of resolved, voided or long-unresolved markets. Each batch is
 * stamped with `stampNow()` as it runs (default: the run's `nowMs`), not the run's start: a long
 * run must not stamp rows further back than the 5 s delta-polling grace (`pollingAsOf`), or an
 * `updatedSince` poller that read meanwhile would never see them.
 */
export async function settlePmPositions(database: Database, nowMs: number, stampNow: () => number = () => nowMs): Promise<number> {
  let settled = 0;
  const settleAll = async (market: { source: string; slug: string }, winnerExternalId: string | null, voidReason: string | null) => {
    for (;;) {
      const n = await database.db.transaction((tx) => settleMarketBatch(tx, { ...market, winnerExternalId, voidReason, nowMs: stampNow() }));
      settled += n;
      if (n === 0) break;
    }
  };
  for (const r of await resolvedMarketsWithOpenPositions(database.db)) {
    const winner = r.state === 'voided' ? null : r.winnerExternalId;
    await settleAll(r, winner, winner === null ? 'market_voided' : null);
  }
  for (const m of await staleMarketsWithOpenPositions(database.db, new Date(nowMs - PM_UNRESOLVED_VOID_AFTER_MS))) {
    await settleAll(m, null, 'market_unresolved');
  }
  return settled;
}

export function pmSettlementJob(deps: { database: Database; clock?: Clock }) {
  const clock = deps.clock ?? systemClock;
  return {
    name: 'pm-settlement',
    intervalMs: PM_SETTLEMENT_INTERVAL_MS,
    async run(nowMs: number) {
      await settlePmPositions(deps.database, nowMs, () => clock.now());
    },
  };
}
