import { SCOPES } from '../domain/api-keys.js';
import type { Queryable } from '../storage/db.js';
import { countKeysExceptUser } from '../storage/house-repo.js';
import { HOUSE_USER_ID } from './house-agents.js';
import { createKey } from './keys.js';

export const ALL_SCOPES_DEMO = [...SCOPES];

/** On a database with no keys (house agents' aside), mints a ready demo key with every scope. */
export async function ensureDemoKey(db: Queryable): Promise<{ key: string; keyId: number } | null> {
  if ((await countKeysExceptUser(db, HOUSE_USER_ID)) > 0) return null;
  const created = await createKey(db, { userId: 'demo', agentName: 'demo-agent', scopes: ALL_SCOPES_DEMO });
  return { key: created.key, keyId: created.keyId };
}
