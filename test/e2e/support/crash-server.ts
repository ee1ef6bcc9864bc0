/**
 * The real server (`paper-arena serve`) as the crash tests run it: embedded PGlite under a
 * test-owned DATA_DIR, the eight-coin universe, budgets raised, never the developer's database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { SMALL_COINS_FILE } from '../../support/small-market.js';

/** What `npm start` and `npx paper-arena` run: the compiled bundle, rebuilt first when a source changed. */
export const ENTRY = ['bin/paper-arena.mjs'];
export const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function crashServerEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', COINS_FILE: SMALL_COINS_FILE, ADMIN_TOKEN, AGENT_RPM: '100000', TRADE_WPM: '100000' };
}

/** Starts the server and waits until it listens; a server that never gets there is killed. */
export async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...ENTRY, 'serve'], { env: crashServerEnv(dataDir, port), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  try {
    // A cold start back-fills the simulated market: seconds on an idle machine, minutes under heavy load.
    await expect.poll(() => output, { timeout: 540_000, interval: 250 }).toContain('listening on');
  } catch (error) {
    child.kill('SIGKILL'); // never leave a half-started server behind
    throw error;
  }
  return child;
}

export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve())));
