import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../src/storage/db.js';
import { initPgliteDir } from '../../src/storage/pglite-init.js';
import { PgliteDirLockedError } from '../../src/storage/pglite-lock.js';
import { isZombie } from '../../src/util/process-alive.js';

/** One process at a time on an embedded PGlite directory (src/storage/pglite-lock.ts). */
const root = mkdtempSync(join(tmpdir(), 'paper-arena-lock-'));
const dir = join(root, 'pglite');
const lockFile = `${dir}.lock`;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const open = () => openDatabase({ databaseUrl: null, pgliteDir: dir });

/** A live process that is not this one (sleeps until killed). */
async function otherProcess(): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  return {
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

describe('embedded database lock', () => {
  it('holds the directory while open: a second open in this process is refused, and close releases it', async () => {
    await initPgliteDir(dir);
    const first = await open();
    try {
      expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
      const second = await open().catch((e: unknown) => e);
      expect(second).toBeInstanceOf(PgliteDirLockedError);
      expect((second as Error).message).toContain('this process');
      await queryRows(first.db, sql`create table lock_probe (n int)`);
    } finally {
      await first.close();
    }
    expect(existsSync(lockFile)).toBe(false);
  }, 60_000);

  it('refuses while another live process holds it, naming its pid, and takes over once that process is gone', async () => {
    const other = await otherProcess();
    writeFileSync(lockFile, `${other.pid}\n`);
    try {
      const refused = await open().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PgliteDirLockedError);
      expect((refused as Error).message).toContain(`pid ${other.pid}`);
      expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(other.pid)); // left as it was
    } finally {
      await other.stop();
    }
    // the holder died without releasing (SIGKILL): the lock is stale, the data intact
    const reopened = await open();
    try {
      expect(await queryRows(reopened.db, sql`select count(*)::int as n from lock_probe`)).toEqual([{ n: 0 }]);
    } finally {
      await reopened.close();
    }
  }, 60_000);

  it.runIf(process.platform === 'linux')('takes over from a holder killed but not yet reaped by its parent (a zombie)', async () => {
    // `sleep` never waits for children: the holder it is left with stays a zombie once killed
    const parent = spawn('sh', ['-c', 'sleep 300 & echo $!; exec sleep 300'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const holder = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk) => resolve(String(chunk).trim()))));
    try {
      // killed while the shell still ran (before its exec), the holder was reaped by it and never became a zombie
      await expect.poll(() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim(), { timeout: 10_000, interval: 20 }).toBe('sleep');
      process.kill(holder, 'SIGKILL');
      await expect.poll(() => isZombie(holder), { timeout: 5_000, interval: 20 }).toBe(true);
      writeFileSync(lockFile, `${holder}\n`);
      const reopened = await open();
      await reopened.close();
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  }, 60_000);

  it('makes a first start wait its turn: no copy into an empty directory another process holds', async () => {
    const emptyDir = join(root, 'empty');
    const other = await otherProcess();
    writeFileSync(`${emptyDir}.lock`, `${other.pid}\n`);
    try {
      await expect(initPgliteDir(emptyDir)).rejects.toThrow(`pid ${other.pid}`);
      expect(existsSync(emptyDir)).toBe(false);
    } finally {
      await other.stop();
    }
    expect(await initPgliteDir(emptyDir)).not.toBe('existing');
    expect(existsSync(join(emptyDir, 'PG_VERSION'))).toBe(true);
    expect(existsSync(`${emptyDir}.lock`)).toBe(false);
    // private ledgers and key hashes inside: only the owner may enter (an existing one is tightened too)
    expect(statSync(emptyDir).mode & 0o777).toBe(0o700);
    chmodSync(emptyDir, 0o755);
    expect(await initPgliteDir(emptyDir)).toBe('existing');
    expect(statSync(emptyDir).mode & 0o777).toBe(0o700);
  }, 60_000);
});
