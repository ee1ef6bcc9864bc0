import type { Config } from '../config/env.js';
import { isScope, SCOPES, USER_ID_PATTERN, type Scope } from '../domain/api-keys.js';
import { HOUSE_USER_ID } from '../services/house-agents.js';
import type { KeyView } from '../services/keys.js';
import { parseArgs } from './args.js';
import { CliError, connectAdmin, type AdminOps } from './admin-ops.js';
import { runDoctor } from './doctor.js';
import { competitionsCommand, COMPETITIONS_USAGE } from './competitions.js';
import { runMarketCommand } from './market.js';
import { MCP_USAGE, runMcpCommand } from './mcp.js';

const USAGE = `paper-arena <command>

  serve | api | worker                         run the service (serve = API + jobs)
  keys create --user U [--name N] [--model M] [--scopes read,trade:spot,...] [--public] [--json]
  keys list [--user U] [--json]
  keys revoke <keyId> [--force] [--json]       (--force: the key is a built-in house agent's)
  agents publish <keyId> | agents unpublish <keyId> [--json]
  doctor                                       check every paper book against its journal
${COMPETITIONS_USAGE}
  market record --out tape.ndjson [--minutes 60] [--every 10] [--no-wait] [--source sim|live]
                                               record the simulated (or live) market to a tape (MARKET_DATA=replay:<file>)
${MCP_USAGE}

Keys commands call the running server's admin API and fall back to the database when no server runs.
Scopes: ${SCOPES.join(', ')} (default: read).`;

const out = (line: string) => process.stdout.write(`${line}\n`);

function text(flags: Map<string, string | true>, name: string): string | undefined {
  const value = flags.get(name);
  if (value === true) throw new CliError(`--${name} needs a value`);
  return value;
}

function keyIdArg(positional: string[]): number {
  const id = Number(positional[0]);
  if (!Number.isInteger(id) || id < 1) throw new CliError('give the key id, a positive integer');
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

async function keysCommand(ops: AdminOps, sub: string | undefined, positional: string[], flags: Map<string, string | true>) {
  const json = flags.has('json');
  if (sub === 'create') {
    const userId = text(flags, 'user');
    if (!userId || !new RegExp(USER_ID_PATTERN).test(userId)) throw new CliError('--user is required: 1..64 of A-Z a-z 0-9 _ . @ -');
    const scopeList = text(flags, 'scopes')?.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = scopeList?.filter((s) => !isScope(s)) ?? [];
    if (unknown.length > 0) throw new CliError(`unknown scope(s): ${unknown.join(', ')}; use ${SCOPES.join(', ')}`);
    const created = await ops.createKey({
      userId,
      name: text(flags, 'name'),
      model: text(flags, 'model'),
      scopes: scopeList as Scope[] | undefined,
      public: flags.has('public'),
    });
    printKey(created, json);
    return;
  }
  if (sub === 'list') {
    const keys = await ops.listKeys(text(flags, 'user'));
    if (json) out(JSON.stringify(keys));
    else keys.forEach((k) => printKey(k, false));
    return;
  }
  if (sub === 'revoke') {
    const keyId = keyIdArg(positional);
    // Revoking a house agent retires it for good; a copied example must not do that by accident.
    const house = (await ops.listKeys(HOUSE_USER_ID)).find((k) => k.keyId === keyId);
    if (house && !house.revokedAt && !flags.has('force')) {
      throw new CliError(`key ${keyId} is the house agent ${house.agentName ?? house.handle ?? ''}; revoking retires it for good — add --force if you mean it`);
    }
    printKey(await ops.revokeKey(keyId), json);
    return;
  }
  throw new CliError(USAGE);
}

/** Runs one CLI command; returns the process exit code. */
export async function runCli(config: Config, argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const [command, sub, ...rest] = positional;
  if (command === 'doctor' || command === 'competitions' || command === 'market' || command === 'mcp') {
    try {
      if (command === 'doctor') return await runDoctor(config);
      if (command === 'market') return await runMarketCommand(config, sub, flags);
      if (command === 'mcp') return await runMcpCommand(flags);
      await competitionsCommand(config, sub, rest, flags);
      return 0;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
  }
  if (command !== 'keys' && command !== 'agents') {
    out(USAGE);
    return command === 'help' || command === undefined ? 0 : 2;
  }
  let ops: AdminOps | null = null;
  try {
    ops = await connectAdmin(config);
    if (command === 'keys') await keysCommand(ops, sub, rest, flags);
    else if (sub === 'publish' || sub === 'unpublish') printKey(await ops.updateKey(keyIdArg(rest), { public: sub === 'publish' }), flags.has('json'));
    else throw new CliError(USAGE);
    return 0;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  } finally {
    await ops?.close();
  }
}
