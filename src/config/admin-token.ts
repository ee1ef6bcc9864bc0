import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

/** ADMIN_TOKEN from the environment, else the one in DATA_DIR/admin-token (created 0600 on first use). */
export function resolveAdminToken(envToken: string | null, dataDir: string): { token: string; source: 'env' | 'file'; created: boolean } {
  if (envToken) return { token: envToken, source: 'env', created: false };
  const path = adminTokenPath(dataDir);
  if (existsSync(path)) return { token: readFileSync(path, 'utf8').trim(), source: 'file', created: false };
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(32).toString('base64url')}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, source: 'file', created: true };
}

/** The admin token if one exists already (the CLI must not invent one). */
export function readAdminToken(envToken: string | null, dataDir: string): string | null {
  if (envToken) return envToken;
  const path = adminTokenPath(dataDir);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
}
