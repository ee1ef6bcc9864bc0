import { runCli } from './cli/main.js';
import { ConfigError, loadConfig } from './config/env.js';
import { runServer, type Role } from './server.js';
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
  if ((ROLES as string[]).includes(command)) return runServer(config, command as Role);
  process.exitCode = await runCli(config, [command, ...rest]);
}

main().catch((error: unknown) => {
  // a locked embedded database is the user's situation to resolve, not a bug: the message says what to do
  const text = error instanceof PgliteDirLockedError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${text}\n`);
  process.exit(1);
});
