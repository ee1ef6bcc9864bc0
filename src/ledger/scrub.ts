// PostgreSQL text and jsonb refuse NUL, and jsonb refuses lone UTF-16 surrogates.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const scrubString = (text: string): string => text.replace(UNSTORABLE, '\ufffd');

/**
 * A copy of a ledger row value the store can always hold (NUL and lone surrogates become U+FFFD,
 * in object keys too), and its approximate size in bytes for the writer's queue bound.
 * Ledger summaries are already bounded (`sanitize`), so the walk is cheap.
 */
export function scrubForStore(value: unknown, depth = 0): { value: unknown; bytes: number } {
  if (typeof value === 'string') {
    const clean = scrubString(value);
    return { value: clean, bytes: clean.length + 2 };
  }
  if (value === null || value === undefined || typeof value !== 'object' || value instanceof Date) return { value, bytes: 8 };
  if (depth > 16) return { value: null, bytes: 4 };
  if (Array.isArray(value)) {
    let bytes = 2;
    const out = value.map((item) => {
      const inner = scrubForStore(item, depth + 1);
      bytes += inner.bytes + 1;
      return inner.value;
    });
    return { value: out, bytes };
  }
  let bytes = 2;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const inner = scrubForStore(v, depth + 1);
    const key = scrubString(k);
    bytes += key.length + 3 + inner.bytes;
    out[key] = inner.value;
  }
  return { value: out, bytes };
}
