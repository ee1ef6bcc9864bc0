import {
  DECISIONS_DATASET_VERSION,
  DECISIONS_SCHEMA,
  EVALUATION_POLICY_VERSION,
  EXECUTION_POLICY_VERSION,
  PAPER_TRADE_RESULT_SCHEMA,
  redactEntryContext,
} from '../arena/decisions.js';
import { encodeCursor, type DatasetCursor } from '../arena/dataset-cursor.js';
import { roundMusd } from '../arena/stats.js';
import {
  countOpenDecisions,
  countOpportunities,
  countResolvedDecisions,
  latestDecisionMarker,
  listOpenDecisions,
  listOpportunities,
  listResolvedDecisions,
  type DecisionRow,
} from '../storage/arena-decisions-repo.js';
import type { Queryable } from '../storage/db.js';

const money = (v: string | null) => (v === null ? null : roundMusd(Number(v)));
/** PM position ids are integers (reference RealizedPaperTrade.positionId); the column stores them as text. */
const positionIdOf = (v: string | null) => (v !== null && /^\d{1,15}$/.test(v) ? Number(v) : v);

/** A `decisions[]` record; `result` is `pending` on the open rows of a house agent. */
export type DecisionRecord = Omit<ReturnType<typeof decisionRecord>, 'result'> & { result: string | null };

/** One `decisions[]` record: v1 fields, then the v2 additions (supplement §2.10). */
export function decisionRecord(r: DecisionRow) {
  const stake = money(r.stakeMusd);
  const pnl = money(r.pnlMusd);
  return {
    decisionId: r.id,
    agent: r.agent,
    agentModel: r.agentModel,
    venue: r.venue,
    question: r.eventTitle,
    eventSlug: r.eventSlug,
    side: r.side,
    chosenOutcome: r.chosenOutcome,
    predictedProbability: r.marketProbability,
    stakeMusd: stake,
    sharesMusd: money(r.sharesMusd),
    result: r.settlementLabel,
    pnlMusd: pnl,
    resolvedAt: r.settledAt,
    openedAt: r.createdAt,
    outcomesCount: r.outcomesCount,
    brier: r.brier,
    agentForecastProbability: r.agentForecastProbability,
    marketProbability: r.marketProbability,
    referenceProbability: r.referenceProbability,
    edgePoints: r.edgePoints,
    agentBrier: r.agentBrier,
    realizedPaperTrade:
      r.positionId !== null && stake !== null && pnl !== null && r.settledAt !== null
        ? {
            schema: PAPER_TRADE_RESULT_SCHEMA,
            positionId: positionIdOf(r.positionId),
            stakeMusd: stake,
            realizedPnlMusd: pnl,
            returnOnStakePct: stake > 0 ? Math.round((100 * pnl * 1e6) / stake) / 1e6 : null,
            settledAt: r.settledAt,
            costBasis: 'recorded_paper_pnl',
            includedInDecisionHash: false,
          }
        : null,
    entryContext: redactEntryContext(r.decisionContext),
    decisionUuid: r.decisionUuid,
    opportunityKind: r.opportunityKind,
    reasonCode: r.reasonCode,
    contentHash: r.contentHash,
    schemaVersion: r.schemaVersion,
    provenance: r.provenance,
  };
}

/** A still-open decision of a house agent (`status=open`): pending, no scores, no PnL yet. */
export function openDecisionRecord(r: DecisionRow): DecisionRecord {
  return { ...decisionRecord(r), result: 'pending', pnlMusd: 0, brier: null, agentBrier: null, realizedPaperTrade: null, resolvedAt: null };
}

/** One `opportunities[]` record (supplement §2.11): no fill, settlement or PnL. */
export function opportunityRecord(r: DecisionRow) {
  const context = r.decisionContext as Record<string, unknown> | null;
  const isCohort = context?.kind === 'opportunity_cohort';
  return {
    decisionUuid: r.decisionUuid,
    schemaVersion: r.schemaVersion,
    opportunityKind: r.opportunityKind,
    reasonCode: r.reasonCode,
    contentHash: r.contentHash,
    agent: r.agent,
    agentModel: r.agentModel,
    venue: r.venue,
    eventTitle: r.eventTitle,
    eventSlug: r.eventSlug,
    eventId: r.eventId,
    side: r.side,
    chosenOutcome: r.chosenOutcome,
    agentForecastProbability: r.agentForecastProbability,
    thesis: r.thesis,
    marketProbability: r.marketProbability,
    referenceProbability: r.referenceProbability,
    referenceVenueCount: r.referenceVenueCount,
    edgePoints: r.edgePoints,
    createdAt: r.createdAt,
    entryContext: isCohort ? null : redactEntryContext(context),
    cohort: isCohort ? context : null,
    provenance: r.provenance,
  };
}

/** The artifact: every stored field plus the hash and the ordered list it covers (supplement §2.12). */
export function decisionArtifact(r: DecisionRow) {
  return {
    decisionUuid: r.decisionUuid,
    schemaVersion: r.schemaVersion,
    contentHash: r.contentHash,
    contentHashFields: r.contentHashFields,
    opportunityKind: r.opportunityKind,
    reasonCode: r.reasonCode,
    result: r.result,
    evaluationPolicyVersion: r.evaluationPolicyVersion,
    executionPolicyVersion: r.executionPolicyVersion,
    apiKeyId: r.apiKeyId,
    agent: r.agent,
    agentModel: r.agentModel,
    venue: r.venue,
    eventTitle: r.eventTitle,
    eventSlug: r.eventSlug,
    eventId: r.eventId,
    side: r.side,
    chosenOutcome: r.chosenOutcome,
    agentForecastProbability: r.agentForecastProbability,
    thesis: r.thesis,
    marketProbability: r.marketProbability,
    referenceProbability: r.referenceProbability,
    referenceVenueCount: r.referenceVenueCount,
    edgePoints: r.edgePoints,
    runId: r.runId,
    decisionId: r.decisionId,
    decisionContext: r.decisionContext,
    provenance: r.provenance,
    settlementLabel: r.settlementLabel,
    settledAt: r.settledAt,
    createdAt: r.createdAt,
    // Stored beside the hashed fields and fixed at write. PnL and Brier scores, which the
    // settlement adds, are not here: the artifact changes only in settlementLabel and settledAt
    // (contract §2.11); the dataset records carry them.
    outcomesCount: r.outcomesCount,
    stakeMusd: money(r.stakeMusd),
    sharesMusd: money(r.sharesMusd),
    positionId: positionIdOf(r.positionId),
  };
}

/** What the settlement added to a decision (the dataset record's fields; the web page shows them beside the artifact). */
export function decisionSettlement(r: DecisionRow) {
  return { pnlMusd: money(r.pnlMusd), brier: r.brier };
}

export const DATASET_DESCRIPTION =
  'Resolved paper prediction-market decisions of public agents: the market probability paid, the agent\'s own forecast when it reported one, the settled result and PnL net of modeled costs. Paper trades in a simulated market; agentModel is self-reported; no model reasoning is included.';

/**
 * Totals are counted once per dataset marker (a new decision, a settlement or a publish change
 * moves it) and at most once a minute: counting every request would scan the whole resolved set.
 */
const COUNT_TTL_MS = 60_000;
const countsByDb = new WeakMap<object, Map<string, { at: number; value: Promise<number> }>>();
function cachedCount(db: Queryable, key: string, nowMs: number, count: () => Promise<number>): Promise<number> {
  let counts = countsByDb.get(db);
  if (!counts) countsByDb.set(db, (counts = new Map()));
  const hit = counts.get(key);
  if (hit && nowMs - hit.at < COUNT_TTL_MS && nowMs >= hit.at) return hit.value;
  const value = count();
  if (counts.size >= 1000) counts.clear();
  counts.set(key, { at: nowMs, value });
  value.catch(() => counts!.delete(key));
  return value;
}

/** Requests arriving while a marker read is in flight share its answer. */
const inflightMarker = new WeakMap<object, Promise<string>>();
/** Changes when a decision is written or settles, or public identities change. */
export function sharedMarker(db: Queryable): Promise<string> {
  let pending = inflightMarker.get(db);
  if (!pending) {
    pending = latestDecisionMarker(db).finally(() => inflightMarker.delete(db));
    inflightMarker.set(db, pending);
  }
  return pending;
}

export interface DatasetQuery {
  nowMs: number;
  limit: number;
  cursor: DatasetCursor;
  cursorText: string | null;
  keyId: number | null;
  /** A well-formed handle naming no public agent matches nothing. */
  matchesNothing: boolean;
  includeOpportunities: boolean;
  /** `open`: a house agent's unsettled decisions (keyId is then that agent's). Default `settled`. */
  status?: 'settled' | 'open';
}

/** One page of the decisions dataset (and, when asked, of the opportunities beside it). */
export async function decisionsPage(db: Queryable, q: DatasetQuery) {
  const none = q.matchesNothing;
  const open = q.status === 'open' && q.keyId !== null;
  const decisions = none ? [] : open ? await listOpenDecisions(db, q.cursor.d, q.limit, q.keyId!) : await listResolvedDecisions(db, q.cursor.d, q.limit, q.keyId);
  const marker = none ? '' : await sharedMarker(db);
  const count = none
    ? 0
    : open
      ? await countOpenDecisions(db, q.keyId!)
      : await cachedCount(db, `d|${q.keyId}|${marker}`, q.nowMs, () => countResolvedDecisions(db, q.keyId));
  const decisionsHasMore = decisions.length > q.limit;
  const pageDecisions = decisions.slice(0, q.limit);
  let opportunities: DecisionRow[] = [];
  let opportunitiesHasMore = false;
  let opportunityCount = 0;
  if (q.includeOpportunities && !none) {
    const rows = await listOpportunities(db, q.cursor.o, q.limit, q.keyId);
    opportunitiesHasMore = rows.length > q.limit;
    opportunities = rows.slice(0, q.limit);
    opportunityCount = await cachedCount(db, `o|${q.keyId}|${marker}`, q.nowMs, () => countOpportunities(db, q.keyId));
  }
  const hasMore = decisionsHasMore || opportunitiesHasMore;
  const last = pageDecisions.at(-1);
  const next: DatasetCursor = {
    // Settled decisions page in resolution order, a house agent's open ones by id.
    d: last ? (open ? last.id : last.resolvedSeq!) : q.cursor.d,
    o: opportunities.at(-1)?.recordedSeq ?? q.cursor.o,
  };
  const nextCursor = hasMore ? encodeCursor(next) : null;
  return {
    rows: pageDecisions,
    record: (open ? openDecisionRecord : decisionRecord) as (r: DecisionRow) => DecisionRecord,
    envelope: {
      schema: DECISIONS_SCHEMA,
      datasetVersion: DECISIONS_DATASET_VERSION,
      description: DATASET_DESCRIPTION,
      executionPolicyVersion: EXECUTION_POLICY_VERSION,
      evaluationPolicyVersion: EVALUATION_POLICY_VERSION,
      count,
      decisions: pageDecisions.map((r): DecisionRecord => (open ? openDecisionRecord(r) : decisionRecord(r))),
      ...(q.includeOpportunities ? { opportunities: opportunities.map(opportunityRecord), opportunityCount } : {}),
      pagination: {
        limit: q.limit,
        cursor: q.cursorText,
        nextCursor,
        hasMore,
        decisionsHasMore,
        ...(q.includeOpportunities ? { opportunitiesHasMore } : {}),
      },
    },
  };
}
