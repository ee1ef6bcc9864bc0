/**
 * PM settlement job (supplement 3.5): every resolved or voided market that still has open
 * positions is settled set-based, a batch per transaction, until none is left.
 */
import type { Database } from '../storage/db.js';
import { resolvedMarketsWithOpenPositions, settleMarketBatch } from '../storage/pm-positions-repo.js';

export const PM_SETTLEMENT_INTERVAL_MS = 60_000;

export async function settlePmPositions(database: Database, nowMs: number): Promise<number> {
  let settled = 0;
  for (const r of await resolvedMarketsWithOpenPositions(database.db)) {
    const winner = r.state === 'voided' ? null : r.winnerExternalId;
    for (;;) {
      const n = await database.db.transaction((tx) =>
        settleMarketBatch(tx, { source: r.source, slug: r.slug, winnerExternalId: winner, voidReason: winner === null ? 'market_voided' : null, nowMs }),
      );
      settled += n;
      if (n === 0) break;
    }
  }
  return settled;
}

export function pmSettlementJob(deps: { database: Database }) {
  return {
    name: 'pm-settlement',
    intervalMs: PM_SETTLEMENT_INTERVAL_MS,
    async run(nowMs: number) {
      await settlePmPositions(deps.database, nowMs);
    },
  };
}
