import { createHash, hash } from 'node:crypto';

const NOT_PLAIN = Symbol('not plain JSON');

/**
 * A copy of `value` with every object's keys inserted in sorted order (undefined members left
 * out), so the engine's own JSON.stringify writes the canonical text; NOT_PLAIN for anything it
 * would write differently (integer-like keys, which objects always list first; `__proto__`; holes;
 * functions, symbols).
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value;
  if (depth > 64) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) return NOT_PLAIN; // a hole
      const inner = sortedCopy(value[i], depth + 1);
      if (inner === NOT_PLAIN) return NOT_PLAIN;
      out[i] = inner === undefined ? null : inner;
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57) || key === '__proto__') return NOT_PLAIN;
    const inner = record[key];
    if (inner === undefined) continue;
    const copy = sortedCopy(inner, depth + 1);
    if (copy === NOT_PLAIN) return NOT_PLAIN;
    out[key] = copy;
  }
  return out;
}

/** JSON with object keys sorted at every level, so equal values always hash equally. */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value, 0);
  return copy === NOT_PLAIN ? canonicalText(value) : JSON.stringify(copy ?? null);
}

/** The same text, written key by key (values sortedCopy cannot hand to JSON.stringify). */
function canonicalText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalText(v)}`).join(',')}}`;
}

// One-shot hashing (Node ≥ 20.12) skips the Hash object: about half the cost on short text.
export const sha256Hex: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'hex') : (text) => createHash('sha256').update(text).digest('hex');
