import { randomBytes } from 'node:crypto';
import { displayPrefix, formatKey, handleFor, hashKey, KEY_RANDOM_BYTES, type Scope } from '../domain/api-keys.js';
import type { Queryable } from '../storage/db.js';
import { ensureUser, insertKey, replaceKeySecret, type KeyRow } from '../storage/keys-repo.js';

export interface KeyView {
  keyId: number;
  userId: string;
  scopes: Scope[];
  agentName: string | null;
  agentModel: string | null;
  public: boolean;
  handle: string | null;
  keyPrefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export function toKeyView(row: KeyRow): KeyView {
  return {
    keyId: row.id,
    userId: row.userId,
    scopes: row.scopes as Scope[],
    agentName: row.agentName,
    agentModel: row.agentModel,
    public: row.isPublic,
    // Revoked or private keys have no public identity.
    handle: row.isPublic && !row.revokedAt ? handleFor(row.id, row.agentName) : null,
    keyPrefix: row.keyPrefix,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}

export interface CreateKeyInput {
  userId: string;
  agentName?: string | null;
  agentModel?: string | null;
  scopes: Scope[];
  public?: boolean;
}

/** Creates the owner if needed and a key; the raw key is returned here and never again. */
export async function createKey(
  db: Queryable,
  input: CreateKeyInput,
  random: (n: number) => Uint8Array = randomBytes,
): Promise<KeyView & { key: string }> {
  const secret = newSecret(random);
  await ensureUser(db, input.userId);
  const row = await insertKey(db, {
    userId: input.userId,
    keyHash: secret.keyHash,
    keyPrefix: secret.keyPrefix,
    scopes: [...new Set(input.scopes)],
    agentName: input.agentName ?? null,
    agentModel: input.agentModel ?? null,
    isPublic: input.public ?? false,
  });
  return { key: secret.raw, ...toKeyView(row) };
}

/** A new raw key's stored parts. */
function newSecret(random: (n: number) => Uint8Array): { raw: string; keyHash: string; keyPrefix: string } {
  const raw = formatKey(random(KEY_RANDOM_BYTES));
  return { raw, keyHash: hashKey(raw), keyPrefix: displayPrefix(raw) };
}

/**
 * Rotates a leaked or expiring key: a new raw key (returned here and never again) for the same
 * key id, book and history; the old raw key gets 401 from the next request. Null when the key is
 * unknown or revoked.
 */
export async function rotateKey(db: Queryable, keyId: number, random: (n: number) => Uint8Array = randomBytes): Promise<(KeyView & { key: string }) | null> {
  const secret = newSecret(random);
  const row = await replaceKeySecret(db, keyId, secret);
  return row ? { key: secret.raw, ...toKeyView(row) } : null;
}
