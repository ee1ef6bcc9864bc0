import { sha256Hex } from '../util/canonical-json.js';

export const SCOPES = ['read', 'trade:spot', 'trade:futures', 'trade:pm'] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_PREFIX = 'sk_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Raw keys carry 32 random bytes (256 bits), well above the 128-bit floor. */
export const KEY_RANDOM_BYTES = 32;

/** Encodes caller-supplied random bytes as a key; the bytes come from outside so this stays pure. */
export function formatKey(random: Uint8Array): string {
  let value = 0n;
  for (const byte of random) value = (value << 8n) | BigInt(byte);
  let body = '';
  while (value > 0n) {
    body = BASE62[Number(value % 62n)] + body;
    value /= 62n;
  }
  return KEY_PREFIX + body.padStart(43, '0');
}

/** Only this digest is stored; the raw key is shown once. */
export function hashKey(rawKey: string): string {
  return sha256Hex(rawKey);
}

/** A short, non-secret label for listings (the prefix plus a few characters). */
export function displayPrefix(rawKey: string): string {
  return rawKey.slice(0, KEY_PREFIX.length + 6);
}

export function looksLikeKey(value: string): boolean {
  return value.startsWith(KEY_PREFIX) && /^[A-Za-z0-9_]{20,200}$/.test(value);
}

export function slugify(text: string | null): string {
  const slug = (text ?? '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return slug.length > 0 ? slug : 'agent';
}

/** Public Arena handle `a{keyId}-{slug}`; the key id makes it unique. */
export function handleFor(keyId: number, agentName: string | null): string {
  return `a${keyId}-${slugify(agentName)}`;
}

export const HANDLE_PATTERN = /^a([1-9][0-9]*)-[a-z0-9A-Z][a-zA-Z0-9-]*$/;

/** Key ids are PostgreSQL `integer`s; a handle claiming a larger one names no key. */
export const MAX_KEY_ID = 2_147_483_647;
/** No key has id 0 (ids start at 1): the id of a well-formed handle beyond MAX_KEY_ID. */
const NO_KEY_ID = 0;

/**
 * The key id a handle claims, or null for a malformed handle. A well-formed handle with an id
 * no key can have answers NO_KEY_ID, so callers treat it like any unknown agent (404, matches
 * nothing), not as malformed (400).
 */
export function keyIdFromHandle(handle: string): number | null {
  const match = HANDLE_PATTERN.exec(handle);
  if (!match || handle.length > 64) return null;
  const id = Number(match[1]);
  return id <= MAX_KEY_ID ? id : NO_KEY_ID;
}

export const USER_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
