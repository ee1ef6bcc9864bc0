import type { Config } from '../config/env.js';
import { readAdminToken } from '../config/admin-token.js';
import { ApiError } from '../http/errors.js';
import { createCompetition, enterCompetition, listAllCompetitionMeta, type CreateCompetitionInput } from '../services/competitions.js';
import { openCliDatabase, serverAnswers, serverBaseUrl } from './admin-ops.js';
import { CompetitionEntryBody, CreateCompetitionBody } from '../http/routes/arena/admin-competitions.js';
import { checkAdminBody } from './admin-body.js';
import { CliError, flagText, type Flags } from './args.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

export const COMPETITIONS_USAGE = `  competitions create --slug S --title T --starts ISO --ends ISO [--description D] [--visibility featured|public|unlisted] [--json]
  competitions enter <slug> <keyId> [--json]
  competitions list [--json]`;

interface Ops {
  create(input: CreateCompetitionInput): Promise<unknown>;
  enter(slug: string, keyId: number): Promise<unknown>;
  list(): Promise<{ competitions: Record<string, unknown>[] }>;
  close(): Promise<void>;
}

/** Through the running server's admin API when it answers, else (no server runs) straight on the database. */
async function connect(config: Config): Promise<Ops> {
  const base = serverBaseUrl(config);
  if (await serverAnswers(base)) {
    const token = readAdminToken(config.adminToken, config.dataDir);
    if (!token) throw new CliError(`a server answers at ${base} but no admin token was found (set ADMIN_TOKEN or DATA_DIR)`);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as { error?: string; message?: string };
      if (!res.ok) throw new CliError(`${res.status} ${json.error ?? ''}: ${json.message ?? ''}`);
      return json;
    };
    return {
      create: (input) => call('POST', '/api/admin/competitions', input),
      enter: (slug, keyId) => call('POST', `/api/admin/competitions/${encodeURIComponent(slug)}/entries`, { keyId }),
      list: () => call('GET', '/api/admin/competitions') as Promise<{ competitions: Record<string, unknown>[] }>,
      close: async () => {},
    };
  }
  const database = await openCliDatabase(config);
  const wrap = async <T>(f: () => Promise<T>) => {
    try {
      return await f();
    } catch (error) {
      if (error instanceof ApiError) throw new CliError(`${error.statusCode} ${error.code}: ${error.message}`);
      throw error;
    }
  };
  return {
    create: (input) => wrap(() => createCompetition(database.db, input, Date.now())),
    enter: (slug, keyId) => wrap(() => enterCompetition(database.db, slug, keyId, Date.now())),
    list: () => listAllCompetitionMeta(database.db, Date.now()),
    close: () => database.close(),
  };
}

/** `competitions create|enter|list`. */
export async function competitionsCommand(config: Config, sub: string | undefined, positional: string[], flags: Flags): Promise<void> {
  if (sub !== 'create' && sub !== 'enter' && sub !== 'list') throw new CliError(COMPETITIONS_USAGE);
  const json = flags.has('json');
  let input: CreateCompetitionInput | null = null;
  if (sub === 'create') {
    const [slug, title, startsAt, endsAt] = ['slug', 'title', 'starts', 'ends'].map((f) => flagText(flags, f));
    if (!slug || !title || !startsAt || !endsAt) throw new CliError('create needs --slug, --title, --starts and --ends');
    const visibility = flagText(flags, 'visibility');
    if (visibility !== undefined && !['featured', 'public', 'unlisted'].includes(visibility)) throw new CliError('--visibility is featured, public or unlisted');
    input = { slug, title, startsAt, endsAt, description: flagText(flags, 'description') ?? null, visibility: visibility as CreateCompetitionInput['visibility'] };
    checkAdminBody(CreateCompetitionBody, input);
  }
  const keyId = Number(positional[1]);
  if (sub === 'enter') {
    if (!positional[0] || !Number.isInteger(keyId) || keyId < 1) throw new CliError('enter needs <slug> <keyId>');
    checkAdminBody(CompetitionEntryBody, { keyId });
  }
  const ops = await connect(config);
  try {
    if (sub === 'list') {
      const { competitions } = await ops.list();
      if (json) out(JSON.stringify(competitions));
      else for (const c of competitions) out(`${c.slug}  ${c.status}  ${c.visibility}${c.featured ? ' featured' : ''}  ${c.startsAt} → ${c.endsAt}  entries ${c.entryCount} public of ${c.entrantCount}  ${c.name}`);
      return;
    }
    const result = sub === 'create' ? await ops.create(input!) : await ops.enter(positional[0]!, keyId);
    out(json ? JSON.stringify(result) : Object.entries(result as Record<string, unknown>).map(([k, v]) => `${k} ${v}`).join('  '));
  } finally {
    await ops.close();
  }
}
