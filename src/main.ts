import { runCli } from './cli/main.js';
import { AdminTokenFileError } from './config/admin-token.js';
import { ConfigError, loadConfig } from './config/env.js';
import type { Role } from './config/role-defaults.js';
import { runServer } from './server.js';
import { CoinsFileError } from './marketdata/coins.js';
import { TapeError } from './marketdata/replay/tape.js';
import { MarketIdentityError } from './services/market-identity.js';
import { DatabaseUnreachableError } from './storage/db.js';
import { NewerSchemaError } from './storage/migrate.js';
import { PgliteDirLockedError } from './storage/pglite-lock.js';

const ROLES: Role[] = ['serve', 'api', 'worker'];

async function main(): Promise<void> {
  const [command = 'serve', ...rest] = process.argv.slice(2);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if ((ROLES as string[]).includes(command)) {
    // api and worker split one deployment over a shared PostgreSQL: on a process's own embedded
    // database a worker ran jobs nobody saw, and an api served without anyone running its jobs
    if (command !== 'serve' && !config.databaseUrl) {
      process.stderr.write(`paper-arena ${command}: the api and worker roles share one PostgreSQL database: set DATABASE_URL (on one machine, run serve)\n`);
      process.exit(2);
    }
    return runServer(config, command as Role);
  }
  process.exitCode = await runCli(config, [command, ...rest]);
}

/** Start-up failures that are the operator's situation, not a bug: their message says what to do, no stack needed. */
// (file-system codes name the path: a DATA_DIR that is a file, a --out in a missing directory, a full disk)
const SITUATION_CODES = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND', 'ENOENT', 'ENOTDIR', 'EISDIR', 'EROFS', 'ENOSPC', 'EPERM']);
const isSituation = (error: unknown): error is Error =>
  error instanceof PgliteDirLockedError ||
  error instanceof NewerSchemaError ||
  error instanceof DatabaseUnreachableError ||
  error instanceof AdminTokenFileError ||
  error instanceof MarketIdentityError ||
  error instanceof TapeError ||
  error instanceof CoinsFileError ||
  (error instanceof Error && SITUATION_CODES.has((error as NodeJS.ErrnoException).code ?? ''));

main().catch((error: unknown) => {
  const text = isSituation(error) ? `paper-arena: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${text}\n`);
  process.exit(1);
});
