import type { Config } from '../config/env.js';
import { isScope, MAX_KEY_ID, SCOPES, USER_ID_PATTERN, type Scope } from '../domain/api-keys.js';
import { CreateKeyBody } from '../http/routes/admin/keys.js';
import { checkAdminBody } from './admin-body.js';
import { HOUSE_USER_ID } from '../services/house-agents.js';
import type { KeyView } from '../services/keys.js';
import { checkFlags, CliError, flagText, parseArgs, type Flags, type FlagSpec } from './args.js';
import { connectAdmin, type AdminOps } from './admin-ops.js';
import { runDoctor } from './doctor.js';
import { competitionsCommand, COMPETITIONS_USAGE } from './competitions.js';
import { runMarketCommand } from './market.js';
import { MCP_USAGE, runMcpCommand } from './mcp.js';

const USAGE = `paper-arena <command>

  serve | api | worker                         run the service (serve = API + jobs)
  keys create --user U [--name N] [--model M] [--scopes read,trade:spot,...] [--public] [--json]
  keys list [--user U] [--json]
  keys revoke <keyId> [--force] [--json]       (--force: the key is a built-in house agent's)
  keys rotate <keyId> [--json]                 a new raw key for the same key id and book; the old one stops working
  agents publish <keyId> | agents unpublish <keyId> [--json]
  doctor                                       check every paper book against its journal
${COMPETITIONS_USAGE}
  market record --out tape.ndjson [--minutes 60] [--every 10] [--no-wait] [--source sim|live]
                                               record the simulated (or live) market to a tape (MARKET_DATA=replay:<file>)
${MCP_USAGE}

Keys commands call the running server's admin API and fall back to the database when no server runs.
Scopes: ${SCOPES.join(', ')} (default: read).`;

const out = (line: string) => process.stdout.write(`${line}\n`);

/** The flags each command takes (anything else is refused before the command runs). */
const FLAG_SPECS: Record<string, FlagSpec> = {
  'keys create': { values: ['user', 'name', 'model', 'scopes'], switches: ['public', 'json'] },
  'keys list': { values: ['user'], switches: ['json'] },
  'keys revoke': { switches: ['force', 'json'] },
  'keys rotate': { switches: ['json'] },
  'agents publish': { switches: ['json'] },
  'agents unpublish': { switches: ['json'] },
  doctor: {},
  'competitions create': { values: ['slug', 'title', 'starts', 'ends', 'visibility', 'description'], switches: ['json'] },
  'competitions edit': { values: ['title', 'starts', 'ends', 'visibility', 'description'], switches: ['json'] },
  'competitions enter': { switches: ['json'] },
  'competitions remove': { switches: ['json'] },
  'competitions delete': { switches: ['json'] },
  'competitions list': { switches: ['json'] },
  'market record': { values: ['out', 'minutes', 'every', 'source'], switches: ['no-wait'] },
  mcp: { values: ['url', 'key'] },
};

function keyIdArg(positional: string[]): number {
  const id = Number(positional[0]);
  if (!Number.isInteger(id) || id < 1 || id > MAX_KEY_ID) throw new CliError(`give the key id, an integer from 1 to ${MAX_KEY_ID}`);
  return id;
}

function printKey(view: KeyView & { key?: string }, json: boolean): void {
  if (json) {
    const { key, keyId, userId, scopes, handle } = view;
    out(JSON.stringify(key !== undefined ? { key, keyId, userId, scopes, handle } : view));
    return;
  }
  if (view.key) out(`key (shown once): ${view.key}`);
  out(
    `keyId ${view.keyId}  user ${view.userId}  scopes ${view.scopes.join(',')}  name ${view.agentName ?? '-'}  model ${view.agentModel ?? '-'}  handle ${view.handle ?? '-'}${view.revokedAt ? `  revoked ${view.revokedAt}` : ''}`,
  );
}

/** Checks a keys / agents command line and returns what it does with the admin operations (connected only then). */
function adminCommand(command: 'keys' | 'agents', sub: string | undefined, positional: string[], flags: Flags): (ops: AdminOps) => Promise<void> {
  const json = flags.has('json');
  if (command === 'agents') {
    if (sub !== 'publish' && sub !== 'unpublish') throw new CliError(USAGE);
    const keyId = keyIdArg(positional);
    return async (ops) => printKey(await ops.updateKey(keyId, { public: sub === 'publish' }), json);
  }
  if (sub === 'create') {
    const userId = flagText(flags, 'user');
    if (!userId || !new RegExp(USER_ID_PATTERN).test(userId)) throw new CliError('--user is required: 1..64 of A-Z a-z 0-9 _ . @ -');
    const scopeList = flagText(flags, 'scopes')?.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = scopeList?.filter((s) => !isScope(s)) ?? [];
    if (unknown.length > 0) throw new CliError(`unknown scope(s): ${unknown.join(', ')}; use ${SCOPES.join(', ')}`);
    const args = { userId, name: flagText(flags, 'name'), model: flagText(flags, 'model'), scopes: scopeList as Scope[] | undefined, public: flags.has('public') };
    checkAdminBody(CreateKeyBody, args);
    return async (ops) => printKey(await ops.createKey(args), json);
  }
  if (sub === 'list') {
    return async (ops) => {
      const keys = await ops.listKeys(flagText(flags, 'user'));
      if (json) out(JSON.stringify(keys));
      else keys.forEach((k) => printKey(k, false));
    };
  }
  if (sub === 'revoke') {
    const keyId = keyIdArg(positional);
    return async (ops) => {
      // Revoking a house agent retires it for good; a copied example must not do that by accident.
      const house = (await ops.listKeys(HOUSE_USER_ID)).find((k) => k.keyId === keyId);
      if (house && !house.revokedAt && !flags.has('force')) {
        throw new CliError(`key ${keyId} is the house agent ${house.agentName ?? house.handle ?? ''}; revoking retires it for good — add --force if you mean it`);
      }
      printKey(await ops.revokeKey(keyId), json);
    };
  }
  if (sub === 'rotate') {
    const keyId = keyIdArg(positional);
    return async (ops) => printKey(await ops.rotateKey(keyId), json);
  }
  throw new CliError(USAGE);
}

/** Runs one CLI command; returns the process exit code (2 for a problem with the command line or the request). */
export async function runCli(config: Config, argv: string[]): Promise<number> {
  try {
    return await runCommand(config, argv);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
}

async function runCommand(config: Config, argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const [command, sub, ...rest] = positional;
  const specOf = (name: string): FlagSpec | undefined => (Object.hasOwn(FLAG_SPECS, name) ? FLAG_SPECS[name] : undefined);
  const spec = specOf(`${command} ${sub}`) ?? specOf(command ?? '');
  if (spec) checkFlags(flags, spec);
  if (command === 'doctor') return runDoctor(config);
  if (command === 'market') return runMarketCommand(config, sub, flags);
  if (command === 'mcp') return runMcpCommand(flags);
  if (command === 'competitions') {
    await competitionsCommand(config, sub, rest, flags);
    return 0;
  }
  if (command !== 'keys' && command !== 'agents') {
    const known = command === 'help' || command === undefined;
    if (!known) process.stderr.write(`paper-arena: unknown command ${JSON.stringify(command)}\n\n`);
    out(USAGE);
    return known ? 0 : 2;
  }
  const run = adminCommand(command, sub, rest, flags); // the command line is checked before anything is opened
  const ops = await connectAdmin(config);
  try {
    await run(ops);
    return 0;
  } finally {
    await ops.close();
  }
}
