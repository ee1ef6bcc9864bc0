import { isSecretName, redactApiKeys } from '../util/secrets.js';

/** Ledger-only exclusions besides secrets: the idempotency key has a column of its own; rationale stays private. */
const LEDGER_PRIVATE_FIELD = new Set(['idempotencyKey', 'rationaleSummary']);
const MAX_STRING = 200;
const MAX_ITEMS = 5;
const MAX_DEPTH = 3;

/**
 * A bounded, secret-free copy of a request or response for the private ledger: strings
 * are cut, arrays keep their first items and their length, deep objects are elided.
 */
export function sanitize(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const clean = redactApiKeys(value); // a key sent under a name no rule knows
    return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…` : clean;
  }
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return { items: value.length };
    const head = value.slice(0, MAX_ITEMS).map((item) => sanitize(item, depth + 1));
    return value.length > MAX_ITEMS ? { items: value.length, head } : head;
  }
  if (typeof value === 'object') {
    if (depth >= MAX_DEPTH) return '{…}';
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (isSecretName(key) || LEDGER_PRIVATE_FIELD.has(key)) continue;
      out[key] = sanitize((value as Record<string, unknown>)[key], depth + 1);
    }
    return out;
  }
  return null;
}
