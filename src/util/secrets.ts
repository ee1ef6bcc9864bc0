import { KEY_PREFIX } from '../domain/api-keys.js';

/**
 * Names whose values are secrets, compared without case, `-`, `_` or `.`, so `x-api-key`,
 * `API_KEY`, `accessToken` and `session.token` all match. Logs (query parameters) and the
 * private ledger (request fields) use this one rule.
 */
const SECRET_NAME = /^(auth|sig|authorization|bearer|cookie|credentials?)$|(key|token|secret|password|passwd|signature)$/;

const secretByName = new Map<string, boolean>();

/** Whether a parameter or field of this name carries a secret (memoized: names are few and repeat). */
export function isSecretName(name: string): boolean {
  let secret = secretByName.get(name);
  if (secret === undefined) {
    secret = SECRET_NAME.test(name.toLowerCase().replace(/[-_.\s]/g, ''));
    if (secretByName.size < 10_000) secretByName.set(name, secret); // caller-chosen names must not grow it without bound
  }
  return secret;
}

const API_KEY_TEXT = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_]+`, 'g');

/** The text with every API key in it (`sk_live_…`, under any name or none) replaced by `sk_live_[redacted]`. */
export function redactApiKeys(text: string): string {
  return text.includes(KEY_PREFIX) ? text.replace(API_KEY_TEXT, `${KEY_PREFIX}[redacted]`) : text;
}

/** `redactApiKeys` over an optional text (trace fields, theses). */
export const redactOptional = (text: string | null | undefined): string | null => (text == null ? null : redactApiKeys(text));

/** Whether a text holds something shaped like an API key. */
export const holdsApiKey = (text: string): boolean => text.includes(KEY_PREFIX);
