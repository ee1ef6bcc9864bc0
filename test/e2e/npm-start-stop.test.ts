import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crashServerEnv, ENTRY, freePort } from './support/crash-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-npm-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a server started by npm', () => {
  it('stops (gracefully, releasing its database) when the npm shell it runs under is gone', async () => {
    const port = await freePort();
    // like `npm start`: npm's shell runs the program and stays its parent (`; true` keeps it from exec-ing)
    const shell = spawn('sh', ['-c', `"${process.execPath}" ${ENTRY.join(' ')} serve; true`], {
      env: { ...crashServerEnv(dataDir, port), npm_lifecycle_event: 'start' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout!.on('data', (chunk) => (output += chunk));
    shell.stderr!.on('data', (chunk) => (output += chunk));
    await expect.poll(() => output, { timeout: 300_000, interval: 250 }).toContain('listening on');
    const lock = join(dataDir, 'pglite.lock');
    const server = Number(readFileSync(lock, 'utf8').trim());
    expect(alive(server)).toBe(true);
    shell.kill('SIGKILL'); // what a SIGTERM to npm leaves behind: the shell gone, the signal not passed on
    await expect.poll(() => alive(server), { timeout: 30_000, interval: 200 }).toBe(false);
    expect(existsSync(lock)).toBe(false); // a graceful stop: the lock released, not left for a takeover
  }, 400_000);

  it('stops gracefully on SIGHUP (its terminal closed), releasing its files: SIGHUP killed it on the spot', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [...ENTRY, 'serve'], { env: crashServerEnv(dataDir, port), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    await expect.poll(() => output, { timeout: 300_000, interval: 250 }).toContain('listening on');
    const exited = new Promise<[number | null, string | null]>((resolve) => server.on('exit', (code, signal) => resolve([code, signal])));
    server.kill('SIGHUP');
    expect(await exited).toEqual([0, null]);
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'sim.lock'))).toBe(false);
  }, 400_000);
});
