// PostgreSQL text and jsonb refuse NUL, and jsonb refuses lone UTF-16 surrogates.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const HAS_UNSTORABLE = new RegExp(UNSTORABLE.source);
// A cheap first look: text without NUL or any surrogate (almost all of it) is storable as it is.
const MAY_BE_UNSTORABLE = /[\u0000\ud800-\udfff]/;

const scrubString = (text: string): string => text.replace(UNSTORABLE, '\ufffd');
const storable = (text: string): boolean => !MAY_BE_UNSTORABLE.test(text) || !HAS_UNSTORABLE.test(text);

/**
 * The size estimate of `value` when it can be stored exactly as it is (plain objects, arrays,
 * primitives and Dates, no unstorable text, not too deep), else -1: then it is copied and scrubbed.
 */
function cleanBytes(value: unknown, depth: number): number {
  if (typeof value === 'string') return storable(value) ? value.length + 2 : -1;
  if (value === null || value === undefined || typeof value !== 'object' || value instanceof Date) return 8;
  if (depth > 16) return -1;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const inner = cleanBytes(value[i], depth + 1);
      if (inner < 0) return -1;
      bytes += inner + 1;
    }
    return bytes;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return -1;
  for (const k in value as Record<string, unknown>) {
    const inner = cleanBytes((value as Record<string, unknown>)[k], depth + 1);
    if (inner < 0 || !storable(k)) return -1;
    bytes += k.length + 3 + inner;
  }
  return bytes;
}

/**
 * A ledger row value the store can always hold (NUL and lone surrogates become U+FFFD, in object
 * keys too), and its approximate size in bytes for the writer's queue bound. A value that is
 * already storable is returned as it is; anything else is copied with the fixes.
 * Ledger summaries are already bounded (`sanitize`), so the walk is cheap.
 */
export function scrubForStore(value: unknown, depth = 0): { value: unknown; bytes: number } {
  const bytes = cleanBytes(value, depth);
  return bytes >= 0 ? { value, bytes } : scrubCopy(value, depth);
}

function scrubCopy(value: unknown, depth: number): { value: unknown; bytes: number } {
  if (typeof value === 'string') {
    const clean = scrubString(value);
    return { value: clean, bytes: clean.length + 2 };
  }
  if (value === null || value === undefined || typeof value !== 'object' || value instanceof Date) return { value, bytes: 8 };
  if (depth > 16) return { value: null, bytes: 4 };
  if (Array.isArray(value)) {
    let bytes = 2;
    const out = value.map((item) => {
      const inner = scrubCopy(item, depth + 1);
      bytes += inner.bytes + 1;
      return inner.value;
    });
    return { value: out, bytes };
  }
  let bytes = 2;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const inner = scrubCopy(v, depth + 1);
    const key = scrubString(k);
    bytes += key.length + 3 + inner.bytes;
    out[key] = inner.value;
  }
  return { value: out, bytes };
}
