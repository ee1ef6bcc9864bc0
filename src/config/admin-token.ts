import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

/** The token file holds too short a token: the operator's to fix (exit 1, one line). */
export class AdminTokenFileError extends Error {}

/** As ADMIN_TOKEN requires (src/config/env.ts). */
const MIN_TOKEN_LENGTH = 16;

/**
 * ADMIN_TOKEN from the environment, else the one in DATA_DIR/admin-token (created 0600 on first
 * use). A file token shorter than ADMIN_TOKEN may be (16) is refused; `warning` names a file
 * other users can read.
 */
export function resolveAdminToken(envToken: string | null, dataDir: string): { token: string; source: 'env' | 'file'; created: boolean; warning?: string } {
  if (envToken) return { token: envToken, source: 'env', created: false };
  const path = adminTokenPath(dataDir);
  if (existsSync(path)) {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new AdminTokenFileError(`the admin token in ${path} has fewer than ${MIN_TOKEN_LENGTH} characters: delete the file (a new token is generated) or set ADMIN_TOKEN`);
    }
    const mode = statSync(path).mode & 0o777;
    const warning = mode & 0o077 ? `${path} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 it` : undefined;
    return { token, source: 'file', created: false, ...(warning ? { warning } : {}) };
  }
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(32).toString('base64url')}`;
  // Written aside, then linked in: the file appears whole or not at all. Two processes starting on
  // one fresh DATA_DIR: the second finds it (EEXIST) and uses the first one's token.
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, `${token}\n`, { mode: 0o600 });
  try {
    linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { token: readFileSync(path, 'utf8').trim(), source: 'file', created: false };
  } finally {
    rmSync(aside, { force: true });
  }
  return { token, source: 'file', created: true };
}

/** The admin token if one exists already (the CLI must not invent one). */
export function readAdminToken(envToken: string | null, dataDir: string): string | null {
  if (envToken) return envToken;
  const path = adminTokenPath(dataDir);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
}
