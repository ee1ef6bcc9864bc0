import type { Config } from '../config/env.js';
import { readAdminToken } from '../config/admin-token.js';
import { ApiError } from '../http/errors.js';
import {
  createCompetition,
  deleteCompetition,
  editCompetition,
  enterCompetition,
  listAllCompetitionMeta,
  removeCompetitionEntry,
  type CreateCompetitionInput,
  type EditCompetitionInput,
} from '../services/competitions.js';
import { openCliDatabase, serverAnswers, serverBaseUrl } from './admin-ops.js';
import { COMPETITION_VISIBILITIES, CompetitionEntryBody, CreateCompetitionBody, EditCompetitionBody } from '../http/routes/arena/admin-competitions.js';
import { checkAdminBody } from './admin-body.js';
import { CliError, flagText, type Flags } from './args.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

export const COMPETITIONS_USAGE = `  competitions create --slug S --title T --starts ISO --ends ISO [--description D] [--visibility featured|public|unlisted] [--json]
  competitions edit <slug> [--title T] [--description D ("" clears it)] [--starts ISO] [--ends ISO] [--visibility V] [--json]
  competitions enter <slug> <keyId> [--json]
  competitions remove <slug> <keyId> [--json]    take a key out (until the end)
  competitions delete <slug> [--json]             (before it starts)
  competitions list [--json]`;

interface Ops {
  create(input: CreateCompetitionInput): Promise<unknown>;
  edit(slug: string, input: EditCompetitionInput): Promise<unknown>;
  enter(slug: string, keyId: number): Promise<unknown>;
  remove(slug: string, keyId: number): Promise<unknown>;
  delete(slug: string): Promise<unknown>;
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
      edit: (slug, input) => call('PATCH', `/api/admin/competitions/${encodeURIComponent(slug)}`, input),
      enter: (slug, keyId) => call('POST', `/api/admin/competitions/${encodeURIComponent(slug)}/entries`, { keyId }),
      remove: (slug, keyId) => call('DELETE', `/api/admin/competitions/${encodeURIComponent(slug)}/entries/${keyId}`),
      delete: (slug) => call('DELETE', `/api/admin/competitions/${encodeURIComponent(slug)}`),
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
    edit: (slug, input) => wrap(() => editCompetition(database.db, slug, input, Date.now())),
    enter: (slug, keyId) => wrap(() => enterCompetition(database.db, slug, keyId, Date.now())),
    remove: (slug, keyId) => wrap(() => removeCompetitionEntry(database.db, slug, keyId, Date.now())),
    delete: (slug) => wrap(() => deleteCompetition(database.db, slug, Date.now())),
    list: () => listAllCompetitionMeta(database.db, Date.now()),
    close: () => database.close(),
  };
}

const SUBCOMMANDS = ['create', 'edit', 'enter', 'remove', 'delete', 'list'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

function visibilityFlag(flags: Flags): CreateCompetitionInput['visibility'] {
  const visibility = flagText(flags, 'visibility');
  if (visibility !== undefined && !(COMPETITION_VISIBILITIES as readonly string[]).includes(visibility)) throw new CliError('--visibility is featured, public or unlisted');
  return visibility as CreateCompetitionInput['visibility'];
}

/** Checks the command line (before anything is opened) and returns the call it makes. */
function plan(sub: Sub, positional: string[], flags: Flags): (ops: Ops) => Promise<unknown> {
  const slug = positional[0];
  const keyId = Number(positional[1]);
  if (sub === 'create') {
    const [slugFlag, title, startsAt, endsAt] = ['slug', 'title', 'starts', 'ends'].map((f) => flagText(flags, f));
    if (!slugFlag || !title || !startsAt || !endsAt) throw new CliError('create needs --slug, --title, --starts and --ends');
    const input = { slug: slugFlag, title, startsAt, endsAt, description: descriptionFlag(flags) ?? null, visibility: visibilityFlag(flags) };
    checkAdminBody(CreateCompetitionBody, input);
    return (ops) => ops.create(input);
  }
  if (sub === 'list') return (ops) => ops.list();
  if (!slug) throw new CliError(`${sub} needs <slug>`);
  if (sub === 'edit') {
    const input: EditCompetitionInput = JSON.parse(
      JSON.stringify({ title: flagText(flags, 'title'), description: descriptionFlag(flags), startsAt: flagText(flags, 'starts'), endsAt: flagText(flags, 'ends'), visibility: visibilityFlag(flags) }),
    );
    if (Object.keys(input).length === 0) throw new CliError('edit needs at least one of --title, --description, --starts, --ends, --visibility');
    checkAdminBody(EditCompetitionBody, input);
    return (ops) => ops.edit(slug, input);
  }
  if (sub === 'delete') return (ops) => ops.delete(slug);
  if (!Number.isInteger(keyId) || keyId < 1) throw new CliError(`${sub} needs <slug> <keyId>`);
  checkAdminBody(CompetitionEntryBody, { keyId });
  return sub === 'enter' ? (ops) => ops.enter(slug, keyId) : (ops) => ops.remove(slug, keyId);
}

/** `--description ""` clears it (null, as the API's edit takes it); it stored an empty text. */
function descriptionFlag(flags: Flags): string | null | undefined {
  const text = flagText(flags, 'description');
  return text === '' ? null : text;
}

/** `competitions create|edit|enter|remove|delete|list`. */
export async function competitionsCommand(config: Config, sub: string | undefined, positional: string[], flags: Flags): Promise<void> {
  if (!(SUBCOMMANDS as readonly (string | undefined)[]).includes(sub)) throw new CliError(COMPETITIONS_USAGE);
  const json = flags.has('json');
  const run = plan(sub as Sub, positional, flags);
  const ops = await connect(config);
  try {
    const result = await run(ops);
    if (sub === 'list') {
      const { competitions } = result as Awaited<ReturnType<Ops['list']>>;
      if (json) out(JSON.stringify(competitions));
      else for (const c of competitions) out(`${c.slug}  ${c.status}  ${c.visibility}${c.featured ? ' featured' : ''}  ${c.startsAt} → ${c.endsAt}  entries ${c.entryCount} public of ${c.entrantCount}  ${c.name}`);
      return;
    }
    out(json ? JSON.stringify(result) : Object.entries(result as Record<string, unknown>).map(([k, v]) => `${k} ${v}`).join('  '));
  } finally {
    await ops.close();
  }
}
