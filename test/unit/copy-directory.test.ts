import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyDirectoryAtomically } from '../../src/util/copy-directory.js';

const root = mkdtempSync(join(tmpdir(), 'paper-arena-copy-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A process started and ended: its pid is free (until the system reuses it). */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('copyDirectoryAtomically', () => {
  it('replaces the target with the copy, and removes copies left by processes that died mid-copy (a SIGTERM during a first start kept 26 MB for good)', async () => {
    const from = join(root, 'template');
    const to = join(root, 'pglite');
    mkdirSync(from);
    writeFileSync(join(from, 'PG_VERSION'), '17\n');
    const abandoned = `${to}.copy-${await endedPid()}`;
    mkdirSync(abandoned);
    writeFileSync(join(abandoned, 'half'), 'x');
    // a copy under way in a live process (the parent of this one) is not ours to remove
    const running = `${to}.copy-${process.ppid}`;
    mkdirSync(running);

    copyDirectoryAtomically(from, to);
    expect(readFileSync(join(to, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(`${to}.copy-${process.pid}`)).toBe(false);
  });
});
