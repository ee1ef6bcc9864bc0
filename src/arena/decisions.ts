import { EXECUTION_VERSION } from '../domain/execution-model.js';
import { Decimal } from '../domain/money.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';

/** Dataset markers and policy versions (contract §2.11, §9 rule 7). */
export const DECISIONS_SCHEMA = 'svc.agentDecisions.v1';
export const DECISIONS_DATASET_VERSION = 'svc.agentDecisions.v2';
export const EVALUATION_POLICY_VERSION = 'eval-1';
export const EXECUTION_POLICY_VERSION = EXECUTION_VERSION;
export const PAPER_TRADE_RESULT_SCHEMA = 'svc.paperTradeResult.v1';

export const OPPORTUNITY_KINDS = ['opened', 'validation_failed', 'risk_rejected', 'execution_rejected', 'abstained', 'forecast_only', 'quote_expired'] as const;
export type OpportunityKind = (typeof OPPORTUNITY_KINDS)[number];
export const SETTLEMENT_LABELS = ['won', 'lost', 'void'] as const;
export type SettlementLabel = (typeof SETTLEMENT_LABELS)[number];

/** The lifecycle label fixed at write time (`result` in the hash): an open awaits settlement. */
export const resultLabelAtWrite = (kind: OpportunityKind) => (kind === 'opened' ? 'pending' : 'not_opened');

/**
 * The ordered fields `contentHash` covers (supplement §2.12). schemaVersion 2 (a provenance
 * block was reported) adds `provenance`. Settlement stamps are outside the hash.
 */
export const CONTENT_HASH_FIELDS_V1 = [
  'decisionUuid', 'schemaVersion', 'opportunityKind', 'reasonCode', 'result',
  'evaluationPolicyVersion', 'executionPolicyVersion', 'apiKeyId', 'agent', 'agentModel',
  'venue', 'eventTitle', 'eventSlug', 'eventId', 'side', 'chosenOutcome',
  'agentForecastProbability', 'thesis', 'marketProbability', 'referenceProbability',
  'referenceVenueCount', 'edgePoints', 'runId', 'decisionId', 'decisionContext', 'createdAt',
] as const;
export const CONTENT_HASH_FIELDS_V2 = [...CONTENT_HASH_FIELDS_V1, 'provenance'] as const;
export const contentHashFieldsFor = (schemaVersion: number): readonly string[] =>
  schemaVersion >= 2 ? CONTENT_HASH_FIELDS_V2 : CONTENT_HASH_FIELDS_V1;

/**
 * SHA-256 hex of the canonical JSON (keys sorted at every level, no whitespace, JSON number
 * and string forms — RFC 8785 for the values we store) of an object holding exactly `fields`,
 * absent values as null.
 */
export function decisionContentHash(artifact: Record<string, unknown>, fields: readonly string[]): string {
  const picked: Record<string, unknown> = {};
  for (const f of fields) picked[f] = artifact[f] ?? null;
  return sha256Hex(canonicalJson(picked));
}

/**
 * Brier of a 0..100 probability against the outcome (supplement §3.7); null while unknown.
 * Computed in decimal: 47/100 gave 0.22089999999999999 in floating point, 0.2209 here. The
 * probability is read to 15 significant digits, as PostgreSQL's float8 → numeric does (the
 * settlement computes the same in SQL): a stored 78.09999999999999 is 78.1.
 */
export function brierOf(probability: number | null, label: SettlementLabel | null): number | null {
  if (probability === null || label === null || label === 'void') return null;
  const won = label === 'won' ? 1 : 0;
  return new Decimal(probability).toSignificantDigits(15).div(100).minus(won).pow(2).toNumber();
}

/** Agent forecast minus market, in points; null without both (never inferred). */
export function edgePointsOf(forecast: number | null, market: number | null): number | null {
  if (forecast === null || market === null) return null;
  return Math.round((forecast - market) * 1e9) / 1e9;
}

/** The five venue-owned entry-context fields the public dataset withholds (supplement §2.10). */
export const REDACTED_CONTEXT_FIELDS = ['volume24h', 'liquidity', 'spread', 'bestBid', 'bestAsk'] as const;

export function redactEntryContext(context: unknown): unknown {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) return context ?? null;
  const copy: Record<string, unknown> = { ...(context as Record<string, unknown>) };
  let withheld = false;
  for (const f of REDACTED_CONTEXT_FIELDS) {
    if (copy[f] !== undefined && copy[f] !== null) withheld = true;
    if (f in copy) copy[f] = null;
  }
  if (withheld) copy.marketDataRedacted = true;
  return copy;
}
