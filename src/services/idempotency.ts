import type { Db, Tx } from '../storage/db.js';
import { claimIdempotencyKey, completeIdempotencyRecord } from '../storage/idempotency-repo.js';
import { ApiError } from '../http/errors.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';

export interface IdempotentCall {
  keyId: number;
  idempotencyKey: string;
  /** The route, e.g. `POST /api/agent/spot/order`: a key reused on another route is a conflict. */
  route: string;
  /** The request body with the route's defaults filled in; `agentTrace` and `idempotencyKey` are not part of the intent. */
  body: Record<string, unknown>;
}

export interface EffectResult {
  statusCode: number;
  body: Record<string, unknown>;
}

/**
 * The hash a replay must match. A top-level field sent as null is the same request as one left
 * out (on every idempotent write null means "none", e.g. a market order's `limitPrice`), so a
 * client that spells out nulls on a retry gets its original answer, not a conflict.
 */
export function intentHash(call: Pick<IdempotentCall, 'route' | 'body'>): string {
  const intent: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(call.body)) {
    if (value !== null && value !== undefined && name !== 'agentTrace' && name !== 'idempotencyKey') intent[name] = value;
  }
  return sha256Hex(canonicalJson({ route: call.route, intent }));
}

/**
 * Runs a trade write at most once per (key, idempotencyKey). The record is written in the
 * same transaction as the effect, so a crash leaves neither; concurrent duplicates wait for
 * the first and replay its answer. Same key + different intent → 409. A refused write
 * (the effect throws) stores nothing, so a retry is evaluated afresh.
 */
export async function runIdempotent(
  db: Db,
  call: IdempotentCall,
  effect: (tx: Tx) => Promise<EffectResult>,
): Promise<EffectResult & { replay: boolean }> {
  const requestHash = intentHash(call);
  return db.transaction(async (tx) => {
    const existing = await claimIdempotencyKey(tx, {
      keyId: call.keyId,
      idempotencyKey: call.idempotencyKey,
      route: call.route,
      requestHash,
    });
    if (existing) return { ...replayOf(existing, requestHash), replay: true };
    const result = await effect(tx);
    await completeIdempotencyRecord(tx, call.keyId, call.idempotencyKey, { statusCode: result.statusCode, response: result.body });
    return { ...result, replay: false };
  });
}

/**
 * The stored answer of a (key, idempotencyKey) already used: replayed when the intent is the
 * same, 409 when it differs (or the record is unfinished).
 */
export function replayOf(
  existing: { requestHash: string; statusCode: number | null; response: unknown },
  requestHash: string,
): EffectResult {
  if (existing.requestHash !== requestHash || existing.statusCode === null) {
    throw new ApiError(409, 'idempotency_key_conflict', 'this idempotencyKey was already used for a different request', {
      field: 'body.idempotencyKey',
    });
  }
  return {
    // A replay did not create anything: 201 (created) is answered as 200.
    statusCode: existing.statusCode === 201 ? 200 : existing.statusCode,
    body: { ...(existing.response as Record<string, unknown>), idempotentReplay: true },
  };
}
