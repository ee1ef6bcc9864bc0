import { randomBytes } from 'node:crypto';
import { displayPrefix, formatKey, handleFor, hashKey, KEY_RANDOM_BYTES, type Scope } from '../domain/api-keys.js';
import type { Queryable } from '../storage/db.js';
import { ensureUser, insertKey, type KeyRow } from '../storage/keys-repo.js';

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
  const raw = formatKey(random(KEY_RANDOM_BYTES));
  await ensureUser(db, input.userId);
  const row = await insertKey(db, {
    userId: input.userId,
    keyHash: hashKey(raw),
    keyPrefix: displayPrefix(raw),
    scopes: [...new Set(input.scopes)],
    agentName: input.agentName ?? null,
    agentModel: input.agentModel ?? null,
    isPublic: input.public ?? false,
  });
  return { key: raw, ...toKeyView(row) };
}
