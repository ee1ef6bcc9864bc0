const SECRET_FIELD = /(^|_)(key|secret|token|password|authorization|apikey|api_key)$|^(apiKey|idempotencyKey|rationaleSummary)$/i;
const MAX_STRING = 200;
const MAX_ITEMS = 5;
const MAX_DEPTH = 3;

// Field names repeat (they are the routes' schemas): each is tested against SECRET_FIELD once.
const secretByName = new Map<string, boolean>();
function isSecretField(name: string): boolean {
  let secret = secretByName.get(name);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(name);
    if (secretByName.size < 10_000) secretByName.set(name, secret); // caller-chosen names must not grow it without bound
  }
  return secret;
}

/**
 * A bounded, secret-free copy of a request or response for the private ledger: strings
 * are cut, arrays keep their first items and their length, deep objects are elided.
 */
export function sanitize(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return { items: value.length };
    const head = value.slice(0, MAX_ITEMS).map((item) => sanitize(item, depth + 1));
    return value.length > MAX_ITEMS ? { items: value.length, head } : head;
  }
  if (typeof value === 'object') {
    if (depth >= MAX_DEPTH) return '{…}';
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (isSecretField(key)) continue;
      out[key] = sanitize((value as Record<string, unknown>)[key], depth + 1);
    }
    return out;
  }
  return null;
}
