import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { handleFor } from '../domain/api-keys.js';
import { redactOptional } from '../util/secrets.js';
import {
  brierOf,
  contentHashFieldsFor,
  decisionContentHash,
  edgePointsOf,
  EVALUATION_POLICY_VERSION,
  EXECUTION_POLICY_VERSION,
  OPPORTUNITY_KINDS,
  resultLabelAtWrite,
  type OpportunityKind,
  type SettlementLabel,
} from '../arena/decisions.js';
import type { Decimal } from '../domain/money.js';
import { queryRows, type Queryable } from './db.js';
import { findKey } from './keys-repo.js';

/** What a venue (PM open, opportunity report) hands over; the server stamps the rest. */
export interface DecisionInput {
  /** null only for the unattributed forecast-only path (never a public proof). */
  keyId: number | null;
  opportunityKind: OpportunityKind;
  reasonCode?: string | null;
  venue?: string | null;
  eventTitle?: string | null;
  eventSlug?: string | null;
  /** The internal integer event id (pm_markets.event_id); stored as text beside legacy "venue/slug" strings. */
  eventId?: number | null;
  side?: string | null;
  chosenOutcome?: string | null;
  /** The agent's own forecast at open, 0..100; null when none was reported (never inferred). */
  agentForecastProbability?: number | null;
  thesis?: string | null;
  /** Market probability paid for the chosen side, 0..100. */
  marketProbability?: number | null;
  referenceProbability?: number | null;
  referenceVenueCount?: number | null;
  runId?: string | null;
  /** The client's own decision id (agentTrace.decisionId). */
  decisionId?: string | null;
  /** Frozen entry context (opens, open-path refusals) or cohort (self-reports). */
  decisionContext?: Record<string, unknown> | null;
  /** Self-reported provenance; any block, even {}, makes the record schemaVersion 2. */
  provenance?: Record<string, unknown> | null;
  outcomesCount?: number | null;
  stakeMusd?: Decimal | null;
  sharesMusd?: Decimal | null;
  /** PM position id of an open (unique); settlement finds the decision by it. */
  positionId?: string | null;
  createdAtMs: number;
}

export interface DecisionRow {
  id: number;
  /** Position in the dataset's resolution order (won/lost decisions only), else null. */
  resolvedSeq: number | null;
  /** Position in the opportunities' record order (non-opened records only), else null. */
  recordedSeq: number | null;
  decisionUuid: string;
  schemaVersion: number;
  opportunityKind: OpportunityKind;
  reasonCode: string | null;
  result: string;
  evaluationPolicyVersion: string;
  executionPolicyVersion: string;
  apiKeyId: number | null;
  agent: string | null;
  agentModel: string | null;
  venue: string | null;
  eventTitle: string | null;
  eventSlug: string | null;
  /** integer since the cut-over; a legacy "venue/slug" string on older records */
  eventId: string | number | null;
  side: string | null;
  chosenOutcome: string | null;
  agentForecastProbability: number | null;
  thesis: string | null;
  marketProbability: number | null;
  referenceProbability: number | null;
  referenceVenueCount: number | null;
  edgePoints: number | null;
  runId: string | null;
  decisionId: string | null;
  decisionContext: Record<string, unknown> | null;
  provenance: Record<string, unknown> | null;
  outcomesCount: number | null;
  stakeMusd: string | null;
  sharesMusd: string | null;
  positionId: string | null;
  createdAt: string;
  contentHash: string;
  contentHashFields: string[];
  settlementLabel: SettlementLabel | null;
  settledAt: string | null;
  pnlMusd: string | null;
  brier: number | null;
  agentBrier: number | null;
}

const PROVENANCE_SERVER_KEYS = ['v', 'executionPolicyVersion', 'evaluationPolicyVersion', 'providerVerified'];
const prob = (name: string, value: number | null | undefined) => {
  if (value === null || value === undefined) return null;
  if (!Number.isFinite(value) || value < 0 || value > 100) throw new RangeError(`${name} must be 0..100`);
  return value;
};

/** Server-stamped provenance first, then the caller's self-reported fields (server keys ignored). */
/** Self-reported provenance keys: sent as null when the report omitted them (reference part C 12). */
const PROVENANCE_REPORT_KEYS = ['runtimeKind', 'packageVersion', 'bundleId', 'bundleVersion', 'skillVersions', 'promptHash', 'configHash', 'modelProvider', 'modelName', 'evidenceRef'];

function stampProvenance(report: Record<string, unknown>): Record<string, unknown> {
  const own = Object.fromEntries(Object.entries(report).filter(([k]) => !PROVENANCE_SERVER_KEYS.includes(k)));
  const blanks = Object.fromEntries(PROVENANCE_REPORT_KEYS.map((k) => [k, null]));
  return { v: 1, executionPolicyVersion: EXECUTION_POLICY_VERSION, evaluationPolicyVersion: EVALUATION_POLICY_VERSION, providerVerified: false, ...blanks, ...own };
}

/**
 * Writes one immutable decision record inside the caller's transaction (the one that opened
 * the position or refused it) and returns it with its server uuid and content hash.
 */
export async function recordDecision(tx: Queryable, input: DecisionInput): Promise<DecisionRow> {
  const key = input.keyId === null ? null : await findKey(tx, input.keyId);
  if (input.keyId !== null && !key) throw new RangeError(`no key ${input.keyId}`);
  const columns = JSON.stringify(decisionInsertRow(input, key));
  const [row] = await queryRows<{ id: string | number }>(
    tx,
    sql`insert into arena_decisions (${sql.raw(DECISION_COLUMNS.join(', '))})
        select ${sql.raw(DECISION_COLUMNS.map((c) => `r.${c}`).join(', '))}
        from jsonb_populate_record(null::arena_decisions, ${columns}::jsonb) r
        returning id`,
  );
  return (await findDecisionById(tx, Number(row!.id)))!;
}

const DECISION_COLUMNS = [
  'decision_uuid', 'schema_version', 'opportunity_kind', 'reason_code', 'result', 'evaluation_policy_version', 'execution_policy_version',
  'key_id', 'agent', 'agent_model', 'venue', 'event_title', 'event_slug', 'event_id', 'side', 'chosen_outcome',
  'agent_forecast_probability', 'thesis', 'market_probability', 'reference_probability', 'reference_venue_count', 'edge_points',
  'run_id', 'client_decision_id', 'decision_context', 'provenance', 'outcomes_count', 'stake_musd', 'shares_musd', 'position_id',
  'created_at', 'content_hash', 'content_hash_fields',
] as const;

/**
 * The arena_decisions row of a decision, by column name, its content hash computed: for
 * recordDecision, and for trade writes that insert it with their other effects. `key` is the
 * decision's key (id, agent name and model), null for the unattributed path.
 */
export function decisionInsertRow(
  input: DecisionInput,
  key: { id: number; agentName: string | null; agentModel: string | null } | null,
): Record<(typeof DECISION_COLUMNS)[number], unknown> {
  if (!OPPORTUNITY_KINDS.includes(input.opportunityKind)) throw new RangeError(`unknown opportunityKind ${input.opportunityKind}`);
  if (input.opportunityKind === 'opened' && input.keyId === null) throw new RangeError('an opened decision needs its key');
  const schemaVersion = input.provenance != null ? 2 : 1;
  const forecast = prob('agentForecastProbability', input.agentForecastProbability);
  const market = prob('marketProbability', input.marketProbability);
  const artifact = {
    decisionUuid: randomUUID(),
    schemaVersion,
    opportunityKind: input.opportunityKind,
    reasonCode: input.reasonCode ?? null,
    result: resultLabelAtWrite(input.opportunityKind),
    evaluationPolicyVersion: EVALUATION_POLICY_VERSION,
    executionPolicyVersion: EXECUTION_POLICY_VERSION,
    apiKeyId: key?.id ?? null,
    agent: key ? handleFor(key.id, key.agentName) : null,
    agentModel: key?.agentModel ?? null,
    venue: input.venue ?? null,
    eventTitle: input.eventTitle ?? null,
    eventSlug: input.eventSlug ?? null,
    eventId: input.eventId ?? null,
    side: input.side ?? null,
    chosenOutcome: input.chosenOutcome ?? null,
    agentForecastProbability: forecast,
    // published: a key pasted into free text must not reach the public dataset
    thesis: redactOptional(input.thesis),
    marketProbability: market,
    referenceProbability: prob('referenceProbability', input.referenceProbability),
    referenceVenueCount: input.referenceVenueCount ?? null,
    edgePoints: edgePointsOf(forecast, market),
    runId: redactOptional(input.runId),
    decisionId: redactOptional(input.decisionId),
    decisionContext: input.decisionContext ?? null,
    provenance: input.provenance != null ? stampProvenance(input.provenance) : null,
    createdAt: new Date(input.createdAtMs).toISOString(),
  };
  // Stored JSON must read back identical to what was hashed.
  const roundTrip = JSON.parse(JSON.stringify(artifact)) as typeof artifact;
  const fields = contentHashFieldsFor(schemaVersion);
  const contentHash = decisionContentHash(roundTrip, fields);
  return {
    decision_uuid: artifact.decisionUuid,
    schema_version: schemaVersion,
    opportunity_kind: artifact.opportunityKind,
    reason_code: artifact.reasonCode,
    result: artifact.result,
    evaluation_policy_version: artifact.evaluationPolicyVersion,
    execution_policy_version: artifact.executionPolicyVersion,
    key_id: artifact.apiKeyId,
    agent: artifact.agent,
    agent_model: artifact.agentModel,
    venue: artifact.venue,
    event_title: artifact.eventTitle,
    event_slug: artifact.eventSlug,
    event_id: artifact.eventId === null ? null : String(artifact.eventId),
    side: artifact.side,
    chosen_outcome: artifact.chosenOutcome,
    agent_forecast_probability: artifact.agentForecastProbability,
    thesis: artifact.thesis,
    market_probability: artifact.marketProbability,
    reference_probability: artifact.referenceProbability,
    reference_venue_count: artifact.referenceVenueCount,
    edge_points: artifact.edgePoints,
    run_id: artifact.runId,
    client_decision_id: artifact.decisionId,
    decision_context: roundTrip.decisionContext,
    provenance: roundTrip.provenance,
    outcomes_count: input.outcomesCount ?? null,
    stake_musd: input.stakeMusd?.toString() ?? null,
    shares_musd: input.sharesMusd?.toString() ?? null,
    position_id: input.positionId ?? null,
    created_at: artifact.createdAt,
    content_hash: contentHash,
    content_hash_fields: fields,
  };
}

export interface Settlement {
  label: SettlementLabel;
  /** Net of modeled costs; payout − stake. */
  pnlMusd: Decimal;
  settledAtMs: number;
}

/**
 * Stamps the settlement of an opened decision once (outside the content hash): label, PnL,
 * settlement time and both Brier scores. A second stamp is refused by the database.
 */
export async function settleDecision(tx: Queryable, by: { decisionUuid: string } | { positionId: string }, s: Settlement): Promise<DecisionRow> {
  const current = 'decisionUuid' in by ? await findDecisionByUuid(tx, by.decisionUuid) : await findDecisionByPosition(tx, by.positionId);
  if (!current) throw new RangeError('no such decision');
  const brier = brierOf(current.marketProbability, s.label);
  const agentBrier = brierOf(current.agentForecastProbability, s.label);
  await tx.execute(
    sql`update arena_decisions set settlement_label = ${s.label}, settled_at = ${new Date(s.settledAtMs).toISOString()}::timestamptz,
          pnl_musd = ${s.pnlMusd.toString()}::numeric, brier = ${brier}, agent_brier = ${agentBrier}
        where id = ${current.id}`,
  );
  return (await findDecisionById(tx, current.id))!;
}

const iso = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
export const decisionColumns = sql`d.id::float8 as id, d.resolved_seq::float8 as "resolvedSeq", d.recorded_seq::float8 as "recordedSeq", d.decision_uuid::text as "decisionUuid", d.schema_version as "schemaVersion",
  d.opportunity_kind as "opportunityKind", d.reason_code as "reasonCode", d.result,
  d.evaluation_policy_version as "evaluationPolicyVersion", d.execution_policy_version as "executionPolicyVersion",
  d.key_id as "apiKeyId", d.agent, d.agent_model as "agentModel", d.venue, d.event_title as "eventTitle",
  d.event_slug as "eventSlug", d.event_id as "eventId", d.side, d.chosen_outcome as "chosenOutcome",
  d.agent_forecast_probability as "agentForecastProbability", d.thesis, d.market_probability as "marketProbability",
  d.reference_probability as "referenceProbability", d.reference_venue_count as "referenceVenueCount",
  d.edge_points as "edgePoints", d.run_id as "runId", d.client_decision_id as "decisionId",
  d.decision_context as "decisionContext", d.provenance, d.outcomes_count as "outcomesCount",
  d.stake_musd::text as "stakeMusd", d.shares_musd::text as "sharesMusd", d.position_id as "positionId",
  ${iso(sql`d.created_at`)} as "createdAt", d.content_hash as "contentHash", d.content_hash_fields as "contentHashFields",
  d.settlement_label as "settlementLabel", ${iso(sql`d.settled_at`)} as "settledAt", d.pnl_musd::text as "pnlMusd",
  d.brier, d.agent_brier as "agentBrier"`;

/**
 * `event_id` holds digits for records written since the integer cut-over (migration 0016) and a
 * legacy "venue/slug" string before it; each reads back as the type it was hashed with.
 */
export const eventIdOf = (stored: string | number | null): string | number | null => (typeof stored === 'string' && /^\d{1,15}$/.test(stored) ? Number(stored) : stored);

function normalize(row: DecisionRow): DecisionRow {
  const seq = (n: number | null) => (n === null ? null : Number(n));
  return { ...row, id: Number(row.id), resolvedSeq: seq(row.resolvedSeq), recordedSeq: seq(row.recordedSeq), eventId: eventIdOf(row.eventId) };
}

async function findOne(db: Queryable, where: SQL): Promise<DecisionRow | null> {
  const rows = await queryRows<DecisionRow>(db, sql`select ${decisionColumns} from arena_decisions d where ${where}`);
  return rows[0] ? normalize(rows[0]) : null;
}

export const findDecisionById = (db: Queryable, id: number) => findOne(db, sql`d.id = ${id}`);
export const findDecisionByUuid = (db: Queryable, uuid: string) => findOne(db, sql`d.decision_uuid = ${uuid}::uuid`);
export const findDecisionByPosition = (db: Queryable, positionId: string) => findOne(db, sql`d.position_id = ${positionId}`);

/** A decision that is a public-agent proof: attributed to a key that is public and unrevoked now. */
export async function findPublicDecision(db: Queryable, uuid: string): Promise<DecisionRow | null> {
  return findOne(
    db,
    sql`d.decision_uuid = ${uuid}::uuid and exists (select 1 from api_keys k where k.id = d.key_id and k.is_public and k.revoked_at is null)`,
  );
}

const publicKey = sql`exists (select 1 from api_keys k where k.id = d.key_id and k.is_public and k.revoked_at is null)`;
/** Won or lost opened decisions: the ones the dataset lists (numbered as they settle, migration 0026). */
const resolvedOpen = sql`d.resolved_seq is not null`;
const agentFilter = (keyId: number | null) => (keyId === null ? sql`true` : sql`d.key_id = ${keyId}`);

/** Resolved public-agent decisions resolved after `afterSeq`, in resolution order (limit + 1 to see if more exist). */
export async function listResolvedDecisions(db: Queryable, afterSeq: number, limit: number, keyId: number | null): Promise<DecisionRow[]> {
  const rows = await queryRows<DecisionRow>(
    db,
    sql`select ${decisionColumns} from arena_decisions d
        where ${resolvedOpen} and d.resolved_seq > ${afterSeq} and ${agentFilter(keyId)} and ${publicKey}
        order by d.resolved_seq limit ${limit + 1}`,
  );
  return rows.map(normalize);
}

export async function countResolvedDecisions(db: Queryable, keyId: number | null): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from arena_decisions d join api_keys k on k.id = d.key_id
        where ${resolvedOpen} and ${agentFilter(keyId)} and k.is_public and k.revoked_at is null`,
  );
  return row?.n ?? 0;
}

/** Still-open (unsettled) opened decisions of one key after `afterId`, oldest first (limit + 1). */
export async function listOpenDecisions(db: Queryable, afterId: number, limit: number, keyId: number): Promise<DecisionRow[]> {
  const rows = await queryRows<DecisionRow>(
    db,
    sql`select ${decisionColumns} from arena_decisions d
        where d.opportunity_kind = 'opened' and d.settlement_label is null and d.id > ${afterId} and d.key_id = ${keyId} and ${publicKey}
        order by d.id limit ${limit + 1}`,
  );
  return rows.map(normalize);
}

export async function countOpenDecisions(db: Queryable, keyId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from arena_decisions d
        where d.opportunity_kind = 'opened' and d.settlement_label is null and d.key_id = ${keyId} and ${publicKey}`,
  );
  return row?.n ?? 0;
}

/** Non-opened opportunities of public agents recorded after `afterSeq`, in record order (limit + 1). */
export async function listOpportunities(db: Queryable, afterSeq: number, limit: number, keyId: number | null): Promise<DecisionRow[]> {
  const rows = await queryRows<DecisionRow>(
    db,
    sql`select ${decisionColumns} from arena_decisions d
        where d.recorded_seq > ${afterSeq} and ${agentFilter(keyId)} and ${publicKey}
        order by d.recorded_seq limit ${limit + 1}`,
  );
  return rows.map(normalize);
}

export async function countOpportunities(db: Queryable, keyId: number | null): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from arena_decisions d join api_keys k on k.id = d.key_id
        where d.opportunity_kind <> 'opened' and ${agentFilter(keyId)} and k.is_public and k.revoked_at is null`,
  );
  return row?.n ?? 0;
}

export interface DecisionScoreRow {
  settlementLabel: SettlementLabel | null;
  agentForecastProbability: number | null;
  marketProbability: number | null;
  referenceProbability: number | null;
}

/** What scorecards need of every opened PM decision of one key. */
export async function listDecisionScores(db: Queryable, keyId: number): Promise<DecisionScoreRow[]> {
  return queryRows<DecisionScoreRow>(
    db,
    sql`select d.settlement_label as "settlementLabel", d.agent_forecast_probability as "agentForecastProbability",
          d.market_probability as "marketProbability", d.reference_probability as "referenceProbability"
        from arena_decisions d where d.key_id = ${keyId} and d.opportunity_kind = 'opened' order by d.id`,
  );
}

/**
 * Newest decision id, newest resolution, newest recorded opportunity and the key-identity version:
 * a new record (also one whose lower id commits late), a settlement or a publish change shows at once.
 */
export async function latestDecisionMarker(db: Queryable): Promise<string> {
  const [row] = await queryRows<{ d: string | number; r: string | number; o: string | number; k: string | number }>(
    db,
    sql`select (select coalesce(max(id), 0) from arena_decisions) as d, (select coalesce(max(resolved_seq), 0) from arena_decisions) as r,
          (select coalesce(max(recorded_seq), 0) from arena_decisions) as o, (select version from arena_identity_version where id = 1) as k`,
  );
  return `${row?.d}:${row?.r}:${row?.o}:${row?.k}`;
}
