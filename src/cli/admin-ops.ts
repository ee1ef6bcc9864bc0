import type { Config } from '../config/env.js';
import { readAdminToken } from '../config/admin-token.js';
import type { Scope } from '../domain/api-keys.js';
import { checkBooks, type DoctorReport } from '../services/doctor.js';
import { createKey, rotateKey, toKeyView, type KeyView } from '../services/keys.js';
import { openDatabase, pgliteDirFor, type Database } from '../storage/db.js';
import { initPgliteDir } from '../storage/pglite-init.js';
import { PgliteDirLockedError } from '../storage/pglite-lock.js';
import { findKey, listKeys, revokeKey, updateKey } from '../storage/keys-repo.js';
import { CliError, httpUrl } from './args.js';

export interface CreateKeyArgs {
  userId: string;
  name?: string;
  model?: string;
  scopes?: Scope[];
  public?: boolean;
}

/** What the CLI can do as an owner; served by the running server or, without one, the database. */
export interface AdminOps {
  via: 'server' | 'database';
  createKey(args: CreateKeyArgs): Promise<KeyView & { key: string }>;
  listKeys(userId?: string): Promise<KeyView[]>;
  revokeKey(keyId: number): Promise<KeyView>;
  rotateKey(keyId: number): Promise<KeyView & { key: string }>;
  updateKey(keyId: number, patch: { agentName?: string | null; agentModel?: string | null; public?: boolean }): Promise<KeyView>;
  doctor(): Promise<DoctorReport>;
  close(): Promise<void>;
}


class HttpAdminOps implements AdminOps {
  readonly via = 'server' as const;
  constructor(private readonly base: string, private readonly token: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as T & { error?: string; message?: string };
    if (!response.ok) throw new CliError(`${response.status} ${json.error ?? ''}: ${json.message ?? ''}`);
    return json;
  }

  createKey(args: CreateKeyArgs) {
    return this.call<KeyView & { key: string }>('POST', '/api/admin/keys', args);
  }
  async listKeys(userId?: string) {
    const query = userId ? `?userId=${encodeURIComponent(userId)}` : '';
    return (await this.call<{ keys: KeyView[] }>('GET', `/api/admin/keys${query}`)).keys;
  }
  revokeKey(keyId: number) {
    return this.call<KeyView>('POST', `/api/admin/keys/${keyId}/revoke`);
  }
  rotateKey(keyId: number) {
    return this.call<KeyView & { key: string }>('POST', `/api/admin/keys/${keyId}/rotate`);
  }
  updateKey(keyId: number, patch: object) {
    return this.call<KeyView>('PATCH', `/api/admin/keys/${keyId}`, patch);
  }
  doctor() {
    return this.call<DoctorReport>('GET', '/api/admin/doctor');
  }
  async close() {}
}

class DbAdminOps implements AdminOps {
  readonly via = 'database' as const;
  constructor(private readonly database: Database) {}

  private async existing(keyId: number) {
    const row = await findKey(this.database.db, keyId);
    if (!row) throw new CliError(`no key ${keyId}`);
    return row;
  }
  createKey(args: CreateKeyArgs) {
    return createKey(this.database.db, {
      userId: args.userId,
      agentName: args.name ?? null,
      agentModel: args.model ?? null,
      scopes: args.scopes ?? ['read'],
      public: args.public ?? false,
    });
  }
  async listKeys(userId?: string) {
    return (await listKeys(this.database.db, userId)).map(toKeyView);
  }
  async revokeKey(keyId: number) {
    await this.existing(keyId);
    return toKeyView((await revokeKey(this.database.db, keyId, new Date()))!);
  }
  async rotateKey(keyId: number) {
    const rotated = await rotateKey(this.database.db, keyId);
    if (rotated) return rotated;
    await this.existing(keyId); // no key: says so
    throw new CliError(`409 key_revoked: key ${keyId} is revoked`);
  }
  async updateKey(keyId: number, patch: { agentName?: string | null; agentModel?: string | null; public?: boolean }) {
    if ((await this.existing(keyId)).revokedAt) throw new CliError(`409 key_revoked: key ${keyId} is revoked`);
    const { public: isPublic, ...rest } = patch;
    return toKeyView((await updateKey(this.database.db, keyId, { ...rest, ...(isPublic !== undefined ? { isPublic } : {}) }))!);
  }
  doctor() {
    return checkBooks(this.database.db);
  }
  close() {
    return this.database.close();
  }
}

export function serverBaseUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const fromEnv = process.env.PAPER_ARENA_URL;
  // a trailing slash made every call `//api/…` (404 "another program on that port?")
  if (fromEnv) return httpUrl(fromEnv, 'PAPER_ARENA_URL').href.replace(/\/+$/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** A busy server (its first ingest, a loaded machine) may take seconds to answer. */
const HEALTHZ_WAIT_MS = 15_000;

/**
 * True when a server answers at `base`, false only when nothing listens there. Anything else (a
 * server too busy to answer in time, another program on the port) is an error: falling back to
 * the database then would open a PGlite directory the server holds, behind its caches' back.
 */
export async function serverAnswers(base: string, waitMs = HEALTHZ_WAIT_MS): Promise<boolean> {
  try {
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(waitMs) });
    if (response.ok) return true;
    throw new CliError(`${base}/healthz answered ${response.status}: is another program on that port?`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return false;
    throw new CliError(`the server at ${base} did not answer /healthz within ${waitMs / 1000} s (${code ?? (error as Error).name}); try again`);
  }
}

/** The running server's admin API when it answers; the database directly when no server runs. */
export async function connectAdmin(config: Config): Promise<AdminOps> {
  const base = serverBaseUrl(config);
  const token = readAdminToken(config.adminToken, config.dataDir);
  if (await serverAnswers(base)) {
    if (!token) throw new CliError(`a server answers at ${base} but no admin token was found (set ADMIN_TOKEN or DATA_DIR)`);
    return new HttpAdminOps(base, token);
  }
  return new DbAdminOps(await openCliDatabase(config));
}

/** The configured database for a command run without a server; an empty DATA_DIR gets the ready PGlite database, as a first start would. */
export async function openCliDatabase(config: Config): Promise<Database> {
  const pgliteDir = pgliteDirFor(config.dataDir);
  try {
    const init = config.databaseUrl ? 'existing' : await initPgliteDir(pgliteDir);
    // a DATA_DIR or PORT set wrong reads an empty new database ("checked 0 books: all match"): say it is new
    if (init !== 'existing') {
      process.stderr.write(`paper-arena: no database was in ${pgliteDir}: this command made a new, empty one (if you meant a server's, give the CLI its DATA_DIR, or PORT / PAPER_ARENA_URL to reach it)\n`);
    }
    return await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir, poolMax: 2 });
  } catch (error) {
    // most often a server on another port (or still starting): say how to reach it
    if (!(error instanceof PgliteDirLockedError)) throw error;
    throw new CliError(`no server answers at ${serverBaseUrl(config)}, and ${error.message}. If that process is the server, set PORT or PAPER_ARENA_URL to reach it.`);
  }
}
