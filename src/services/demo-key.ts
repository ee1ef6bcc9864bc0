import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCOPES } from '../domain/api-keys.js';
import type { Queryable } from '../storage/db.js';
import { countKeysExceptUser } from '../storage/house-repo.js';
import { HOUSE_USER_ID } from './house-agents.js';
import { createKey } from './keys.js';

export const ALL_SCOPES_DEMO = [...SCOPES];

export function demoKeyPath(dataDir: string): string {
  return join(dataDir, 'demo-key');
}

/**
 * On a database with no keys (house agents' aside), mints a ready demo key with every scope and
 * keeps a copy in DATA_DIR/demo-key (mode 0600), so it survives the terminal scrolling away
 * (no file when `dataDir` is omitted).
 */
export async function ensureDemoKey(db: Queryable, dataDir?: string): Promise<{ key: string; keyId: number; path: string | null } | null> {
  if ((await countKeysExceptUser(db, HOUSE_USER_ID)) > 0) return null;
  const created = await createKey(db, { userId: 'demo', agentName: 'demo-agent', scopes: ALL_SCOPES_DEMO });
  if (dataDir === undefined) return { key: created.key, keyId: created.keyId, path: null };
  const path = demoKeyPath(dataDir);
  mkdirSync(dataDir, { recursive: true });
  // A stale file from an older database is replaced; the mode applies to a new file, so set it either way.
  writeFileSync(path, `${created.key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { key: created.key, keyId: created.keyId, path };
}
