import { canonicalJson, sha256Hex } from '../util/canonical-json.js';
import { isoAt } from '../util/iso-time.js';
import type { Freshness } from './freshness.js';

export const OBSERVATION_SCHEMA = 'svc.agentObservation.v1';

/** What a read observed, so an agent can cite it (contract supplement 1.0). */
export interface Observation {
  schema: typeof OBSERVATION_SCHEMA;
  endpoint: string;
  source: string;
  observedAt: string;
  sourceAsOf: string | null;
  freshness: Freshness | null;
  inputs: Record<string, unknown>;
  dataset: Record<string, unknown>;
  rowCount: number | null;
  /** First 16 hex of SHA-256 over the canonical JSON of every other field. */
  hash: string;
}

export interface ObservationInput {
  endpoint: string;
  source: string;
  observedAtMs: number;
  sourceAsOfMs: number | null;
  freshness: Freshness | null;
  inputs: Record<string, unknown>;
  dataset?: Record<string, unknown>;
  rowCount?: number | null;
}

export function buildObservation(input: ObservationInput): Observation {
  const body = {
    schema: OBSERVATION_SCHEMA,
    endpoint: input.endpoint,
    source: input.source,
    observedAt: isoAt(input.observedAtMs),
    sourceAsOf: input.sourceAsOfMs === null ? null : isoAt(input.sourceAsOfMs),
    freshness: input.freshness,
    inputs: input.inputs,
    dataset: input.dataset ?? {},
    rowCount: input.rowCount ?? null,
  } as const;
  return { ...body, hash: sha256Hex(canonicalJson(body)).slice(0, 16) };
}
