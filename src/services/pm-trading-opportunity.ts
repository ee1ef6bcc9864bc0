/** `POST /api/agent/pm/opportunity`: self-reported non-opened decisions, deduplicated on (key, decisionId). */
import type { AppContext } from '../http/context.js';
import { venueMarketOf } from '../pm/api.js';
import { chosenSideReference } from '../pm/read-model.js';
import { findDecisionByUuid, recordDecision, type DecisionRow } from '../storage/arena-decisions-repo.js';
import { loadPmMarketWithCluster } from '../storage/pm-repo.js';
import { lockAndFindOpportunity } from '../storage/pm-positions-repo.js';

export interface OpportunityReport {
  kind: 'abstained' | 'forecast_only' | 'quote_expired';
  source?: string;
  slug?: string;
  outcomeExternalMarketId?: string;
  side?: 'yes' | 'no';
  forecastProbability?: number;
  marketProbability?: number;
  reasonCode?: string;
  cohort?: { universeSize?: number; horizon?: string };
  decisionId?: string;
  runId?: string;
  thesis?: string;
  agentTrace?: { runId?: string | null; decisionId?: string | null } | null;
  provenance?: unknown;
}

const LEGACY_RESULT = { abstained: 'abstained', forecast_only: 'quoted', quote_expired: 'rejected' } as const;

export async function recordOpportunity(ctx: AppContext, keyId: number, r: OpportunityReport): Promise<{ replay: boolean; body: Record<string, unknown> & { decisionUuid: string } }> {
  const nowMs = ctx.clock.now();
  // Title and outcome name come from our own data when the subject market is known.
  const read = r.source && r.slug ? await loadPmMarketWithCluster(ctx.database.db, r.source, r.slug) : null;
  const market = read ? venueMarketOf(read.market, nowMs) : null;
  const outcome = market?.outcomes.find((o) => o.externalMarketId === r.outcomeExternalMarketId);
  const side = r.side ?? (r.outcomeExternalMarketId ? 'yes' : null);
  // the cross-venue reference of the reported side, as an open would record it
  const reference =
    read && outcome && side ? chosenSideReference(read.market, read.cluster, outcome.externalMarketId, side) : null;
  const decisionId = r.decisionId ?? r.agentTrace?.decisionId ?? null;
  const receipt = (d: DecisionRow, replay: boolean) => ({
    replay,
    body: {
      decisionUuid: d.decisionUuid,
      opportunityKind: d.opportunityKind,
      result: LEGACY_RESULT[d.opportunityKind as OpportunityReport['kind']] ?? d.opportunityKind,
      idempotentReplay: replay,
      thesis: d.thesis,
      contentHash: d.contentHash,
      schemaVersion: d.schemaVersion,
    },
  });
  return ctx.database.db.transaction(async (tx) => {
    if (decisionId !== null) {
      const existing = await lockAndFindOpportunity(tx, keyId, decisionId);
      if (existing) return receipt((await findDecisionByUuid(tx, existing))!, true);
    }
    const d = await recordDecision(tx, {
      keyId,
      opportunityKind: r.kind,
      reasonCode: r.reasonCode ?? null,
      venue: r.source ?? null,
      eventTitle: market?.title ?? null,
      eventSlug: r.slug ?? null,
      eventId: market?.eventId ?? null,
      side,
      chosenOutcome: outcome?.name ?? null,
      agentForecastProbability: r.forecastProbability ?? null,
      thesis: r.thesis ?? null,
      marketProbability: r.marketProbability ?? null,
      referenceProbability: reference?.probability ?? null,
      referenceVenueCount: reference?.venueCount ?? null,
      runId: r.runId ?? r.agentTrace?.runId ?? null,
      decisionId,
      decisionContext: {
        kind: 'opportunity_cohort',
        v: 1,
        capturedAt: new Date(nowMs).toISOString(),
        universeSize: r.cohort?.universeSize ?? null,
        horizon: r.cohort?.horizon ?? null,
      },
      provenance: (r.provenance as Record<string, unknown> | undefined) ?? null,
      createdAtMs: nowMs,
    });
    return receipt(d, false);
  });
}
