import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SMALL_COINS_FILE } from '../support/small-market.js';
import { ENTRY, freePort } from './support/crash-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-arena-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function env(port: number): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, ADMIN_TOKEN: _a, REDIS_URL: _r, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', COINS_FILE: SMALL_COINS_FILE };
}
const cli = (port: number, args: string[]) => spawnSync(process.execPath, [...ENTRY, ...args], { env: env(port), encoding: 'utf8' });

// a window open now (windows end in the future and last at most 366 days)
const STARTS = new Date(Date.now() - 86_400_000).toISOString();
const ENDS = new Date(Date.now() + 30 * 86_400_000).toISOString();
const ENDS_LATER = new Date(Date.now() + 40 * 86_400_000).toISOString();

describe('competitions CLI', () => {
  it('creates, enters and lists through the database, then through a running server', async () => {
    const port = await freePort();
    const key = JSON.parse(cli(port, ['keys', 'create', '--user', 'me', '--name', 'racer', '--public', '--json']).stdout.trim());
    const created = cli(port, ['competitions', 'create', '--slug', 'cup', '--title', 'Cup', '--description', 'Spring', '--starts', STARTS, '--ends', ENDS, '--visibility', 'unlisted', '--json']);
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ slug: 'cup', description: 'Spring', visibility: 'unlisted', featured: false, entryCount: 0 });
    const entered = cli(port, ['competitions', 'enter', 'cup', String(key.keyId), '--json']);
    expect(entered.status, entered.stderr).toBe(0);
    const missing = cli(port, ['competitions', 'enter', 'nope', String(key.keyId)]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('competition_not_found');
    const edited = cli(port, ['competitions', 'edit', 'cup', '--title', 'Cup 2026', '--ends', ENDS_LATER, '--description', '', '--json']);
    expect(edited.status, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ slug: 'cup', name: 'Cup 2026', endsAt: ENDS_LATER, description: null }); // "" clears it
    const removed = cli(port, ['competitions', 'remove', 'cup', String(key.keyId), '--json']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(cli(port, ['competitions', 'remove', 'cup', String(key.keyId)]).stderr).toContain('404 entry_not_found');

    const server = spawn(process.execPath, [...ENTRY, 'serve'], { env: env(port), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk) => (output += chunk));
    server.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 30_000, interval: 200 }).toContain('listening on');
      const online = cli(port, ['competitions', 'create', '--slug', 'open-cup', '--title', 'Open Cup', '--starts', STARTS, '--ends', ENDS, '--json']);
      expect(online.status, online.stderr).toBe(0);
      expect(cli(port, ['competitions', 'enter', 'cup', String(key.keyId)]).status).toBe(0);
      const later = cli(port, ['competitions', 'create', '--slug', 'later-cup', '--title', 'Later', '--starts', ENDS, '--ends', ENDS_LATER]);
      expect(later.status, later.stderr).toBe(0);
      expect(JSON.parse(cli(port, ['competitions', 'delete', 'later-cup', '--json']).stdout)).toMatchObject({ slug: 'later-cup' });
      const running = cli(port, ['competitions', 'delete', 'cup']);
      expect([running.status, running.stderr]).toEqual([2, expect.stringContaining('409 competition_started')]);
      const list = JSON.parse(cli(port, ['competitions', 'list', '--json']).stdout);
      expect(list.map((c: { slug: string }) => c.slug)).toEqual(['cup', 'open-cup']);
      const board = await (await fetch(`http://127.0.0.1:${port}/api/competitions/cup`)).json();
      expect(board.rows).toEqual([expect.objectContaining({ handle: `a${key.keyId}-racer`, rank: null })]);
      const pub = await (await fetch(`http://127.0.0.1:${port}/api/competitions`)).json();
      expect(pub.competitions.map((c: { slug: string }) => c.slug)).toEqual(['open-cup']);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }, 400_000);
});
