import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SMALL_COINS_FILE } from '../support/small-market.js';
import { ENTRY, freePort } from './support/crash-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-e2e-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function env(port: number): NodeJS.ProcessEnv {
  // Never the developer's database: this test owns its DATA_DIR (embedded PGlite).
  const { DATABASE_URL: _d, ADMIN_TOKEN: _a, REDIS_URL: _r, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', COINS_FILE: SMALL_COINS_FILE };
}

const cli = (port: number, args: string[]) => spawnSync(process.execPath, [...ENTRY, ...args], { env: env(port), encoding: 'utf8' });

describe('CLI and server, as a user runs them', () => {
  it('creates keys through the database when no server runs, then through a running server', async () => {
    const port = await freePort();
    const offline = cli(port, ['keys', 'create', '--user', 'me', '--name', 'scout', '--model', 'my-llm', '--scopes', 'read,trade:spot', '--public', '--json']);
    expect(offline.status, offline.stderr).toBe(0);
    // an empty DATA_DIR: the command says it made the database (a wrong DATA_DIR read "0 books, all match")
    expect(offline.stderr).toContain(`no database was in ${join(dataDir, 'pglite')}: this command made a new, empty one`);
    const created = JSON.parse(offline.stdout.trim());
    expect(Object.keys(created).sort()).toEqual(['handle', 'key', 'keyId', 'scopes', 'userId']);
    expect(created).toMatchObject({ userId: 'me', scopes: ['read', 'trade:spot'], handle: `a${created.keyId}-scout` });

    // rotated with no server running: straight on the database; the first secret is retired
    const first = created.key;
    const rotatedOffline = cli(port, ['keys', 'rotate', String(created.keyId), '--json']);
    expect(rotatedOffline.status, rotatedOffline.stderr).toBe(0);
    expect(rotatedOffline.stderr).not.toContain('no database was in');
    created.key = JSON.parse(rotatedOffline.stdout).key;
    expect(created.key).toMatch(/^sk_live_/);
    expect(created.key).not.toBe(first);

    const unknown = cli(port, ['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('paper-arena: unknown command "frobnicate"');

    const bad = cli(port, ['keys', 'create', '--user', 'me', '--scopes', 'read,root']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown scope');

    const server = spawn(process.execPath, [...ENTRY, 'serve'], { env: env(port), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk) => (output += chunk));
    server.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 30_000, interval: 200 }).toContain('listening on');
      // Keys existed already, so no demo key is minted; the admin token file is private.
      expect(output).not.toContain('demo key');
      expect(output).toMatch(/market: serving prices \(\d+ coins\)/);
      expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);

      const me = await fetch(`http://127.0.0.1:${port}/api/agent/me`, { headers: { authorization: `Bearer ${created.key}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ userId: 'me', agentName: 'scout', agentModel: 'my-llm' });

      // Pointed at another port, the CLI must not open the server's database beside it.
      const elsewhere = cli(await freePort(), ['keys', 'list', '--json']);
      expect(elsewhere.status).toBe(2);
      expect(elsewhere.stderr).toContain('is open in another process');
      expect(elsewhere.stderr).toContain('set PORT or PAPER_ARENA_URL');

      // A second server on this DATA_DIR is refused before it writes under it: it used to back-fill
      // and overwrite the running server's market history (sim/) before the database lock refused it.
      const second = spawnSync(process.execPath, [...ENTRY, 'serve'], { env: env(await freePort()), encoding: 'utf8', timeout: 60_000 });
      expect(second.status).toBe(1);
      expect(second.stderr).toMatch(/^paper-arena: the simulated market in .*sim is open in another process \(pid \d+\)/);
      expect(second.stdout).not.toContain('market:');

      expect((await fetch(`http://127.0.0.1:${port}/api/agent/me`, { headers: { authorization: `Bearer ${first}` } })).status).toBe(401);
      const rotated = JSON.parse(cli(port, ['keys', 'rotate', String(created.keyId), '--json']).stdout);
      expect(rotated.keyId).toBe(created.keyId);
      expect((await fetch(`http://127.0.0.1:${port}/api/agent/me`, { headers: { authorization: `Bearer ${created.key}` } })).status).toBe(401);
      created.key = rotated.key;
      expect((await fetch(`http://127.0.0.1:${port}/api/agent/me`, { headers: { authorization: `Bearer ${created.key}` } })).status).toBe(200);

      const online = cli(port, ['keys', 'revoke', String(created.keyId), '--json']);
      expect(online.status, online.stderr).toBe(0);
      expect(JSON.parse(online.stdout).revokedAt).toBeTypeOf('string');
      const after = await fetch(`http://127.0.0.1:${port}/api/agent/me`, { headers: { authorization: `Bearer ${created.key}` } });
      expect(after.status).toBe(401);

      // A house agent's key is retired only with --force (a copied example must not do it).
      const houseKeys = JSON.parse(cli(port, ['keys', 'list', '--user', 'house', '--json']).stdout) as { keyId: number }[];
      expect(houseKeys.length).toBeGreaterThan(0);
      const houseId = String(houseKeys[0]!.keyId);
      const refused = cli(port, ['keys', 'revoke', houseId]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('--force');
      const forced = cli(port, ['keys', 'revoke', houseId, '--force', '--json']);
      expect(forced.status, forced.stderr).toBe(0);
      expect(JSON.parse(forced.stdout).revokedAt).toBeTypeOf('string');
    } finally {
      server.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => server.on('exit', resolve));
    expect(code).toBe(0);
  }, 90_000);

  it('refuses a bad configuration with every problem listed', () => {
    const run = spawnSync(process.execPath, [...ENTRY, 'serve'], {
      env: { ...process.env, PORT: 'x', AGENT_RPM: '-1' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('PORT');
    expect(run.stderr).toContain('AGENT_RPM');
  }, 30_000);

  it('refuses the api and worker roles without DATABASE_URL (a worker ran its jobs on a private embedded database, silently)', () => {
    for (const role of ['api', 'worker']) {
      const run = spawnSync(process.execPath, [...ENTRY, role], { env: env(0), encoding: 'utf8', timeout: 30_000 });
      expect(run.status, role).toBe(2);
      expect(run.stderr).toContain(`paper-arena ${role}: the api and worker roles share one PostgreSQL database: set DATABASE_URL`);
    }
  }, 60_000);

  it('says at start when the market source has no price yet (a tape of none here; live mode offline said "serving prices")', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paper-arena-noprice-'));
    const tape = join(dir, 'no-prices.ndjson');
    const t = Date.now();
    writeFileSync(tape, `${JSON.stringify({ tape: 'paper-arena.market-tape.v1', source: 'test', startMs: t, endMs: t, coins: 0, everySeconds: 10 })}\n${JSON.stringify({ t, q: {} })}\n`);
    const port = await freePort();
    const server = spawn(process.execPath, [...ENTRY, 'serve'], { env: { ...env(port), DATA_DIR: join(dir, 'data'), MARKET_DATA: `replay:${tape}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk) => (output += chunk));
    server.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 30_000, interval: 200 }).toContain('listening on');
      expect(output).toContain('market: no prices yet');
      expect(output).not.toContain('market: serving prices');
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.on('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('says in one line, without a stack, what is wrong with a file it was given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paper-arena-files-'));
    try {
      const coins = join(dir, 'coins.json');
      const tape = join(dir, 'empty.ndjson');
      writeFileSync(coins, '{not json');
      writeFileSync(tape, '');
      // a hand-written token file shorter than ADMIN_TOKEN may be (it was taken as is)
      mkdirSync(join(dir, 'short-token'));
      writeFileSync(join(dir, 'short-token', 'admin-token'), 'abc\n', { mode: 0o600 });
      const port = await freePort();
      const cases: [NodeJS.ProcessEnv, string[], RegExp][] = [
        [{ COINS_FILE: coins }, ['serve'], /^paper-arena: invalid coins file: cannot read .*coins\.json/m],
        [{ MARKET_DATA: `replay:${tape}` }, ['serve'], /^paper-arena: the tape .*empty\.ndjson holds no snapshot/m],
        [{}, ['market', 'record', '--out', join(dir, 'missing', 'x.ndjson'), '--minutes', '1', '--no-wait'], /^paper-arena: ENOENT: no such file or directory, open '.*x\.ndjson'/m],
        [{ DATA_DIR: join(dir, 'short-token') }, ['serve'], /^paper-arena: the admin token in .*admin-token has fewer than 16 characters/m],
        // nothing listens on `port`: PostgreSQL down (it printed the driver's stack); the password is not repeated
        [
          { DATABASE_URL: `postgres://agent:s3cret@127.0.0.1:${port}/arena?sslmode=disable` },
          ['api'],
          new RegExp(`^paper-arena: cannot use the database at postgres://agent@127\\.0\\.0\\.1:${port}/arena \\(DATABASE_URL\\): .*ECONNREFUSED`, 'm'),
        ],
      ];
      for (const [extra, args, message] of cases) {
        const run = spawnSync(process.execPath, [...ENTRY, ...args], { env: { ...env(port), DATA_DIR: join(dir, 'data'), ...extra }, encoding: 'utf8', timeout: 60_000 });
        expect(run.status, run.stderr).toBe(1);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).not.toMatch(/^\s+at /m);
        expect(run.stderr).not.toContain('s3cret');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
