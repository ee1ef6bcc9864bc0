/**
 * One real server for the browser tests: `src/main.ts serve` on embedded PGlite in a test-owned
 * DATA_DIR, the eight-coin universe, the fast simulator profile (house agents and PM venues
 * trading within seconds) and a raised public budget (one test walks every page).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, crashServerEnv, ENTRY, exited, freePort } from '../../e2e/support/crash-server.js';

export { ADMIN_TOKEN };
export const PUBLIC_RPM = 5000;

/** Polls `ready` (hooks cannot use expect.poll) until it holds or `timeoutMs` passes. */
export async function until(ready: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface WebServer {
  base: string;
  stop(): Promise<void>;
}

export async function startWebServer(): Promise<WebServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-web-'));
  const port = await freePort();
  const env = { ...crashServerEnv(dataDir, port), SIM_PROFILE: 'fast', PUBLIC_RPM: String(PUBLIC_RPM) };
  const child: ChildProcess = spawn(process.execPath, [...ENTRY, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // A cold start takes seconds on an idle machine and minutes on a loaded one.
    await until(() => output.includes('listening on'), 300_000, 'the server to listen');
  } catch (error) {
    child.kill('SIGKILL');
    await stop();
    throw new Error(`server did not start: ${output.slice(-2000)}`, { cause: error });
  }
  return { base: `http://127.0.0.1:${port}`, stop };
}
