import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// existsSync passes through; one test makes it miss a file, as a process racing another one would
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, existsSync: vi.fn(fs.existsSync) };
});
import { AdminTokenFileError, adminTokenPath, resolveAdminToken } from '../../src/config/admin-token.js';

const root = mkdtempSync(join(tmpdir(), 'paper-arena-token-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the admin token file (DATA_DIR/admin-token)', () => {
  it('is created once with mode 0600 and read back; a readable-by-others file is named in a warning', () => {
    const dir = join(root, 'fresh');
    const created = resolveAdminToken(null, dir);
    expect(created).toMatchObject({ source: 'file', created: true });
    expect(statSync(adminTokenPath(dir)).mode & 0o777).toBe(0o600);
    expect(resolveAdminToken(null, dir)).toEqual({ token: created.token, source: 'file', created: false });
    chmodSync(adminTokenPath(dir), 0o644);
    expect(resolveAdminToken(null, dir).warning).toBe(`${adminTokenPath(dir)} can be read by other users (mode 0644): chmod 600 it`);
  });

  it('refuses a token shorter than ADMIN_TOKEN may be (a hand-written "abc" was taken as is); the environment wins over the file', () => {
    const dir = join(root, 'short');
    resolveAdminToken(null, dir);
    writeFileSync(adminTokenPath(dir), 'abc\n');
    expect(() => resolveAdminToken(null, dir)).toThrow(AdminTokenFileError);
    expect(resolveAdminToken('x'.repeat(16), dir)).toEqual({ token: 'x'.repeat(16), source: 'env', created: false });
  });

  it('two processes creating it at once: the second uses the first one’s token (it exited with EEXIST and a stack)', () => {
    const dir = join(root, 'race');
    mkdirSync(dir);
    const first = `adm_${'f'.repeat(43)}`;
    writeFileSync(adminTokenPath(dir), `${first}\n`, { mode: 0o600 });
    vi.mocked(existsSync).mockReturnValueOnce(false); // it looked before the other process wrote it
    expect(resolveAdminToken(null, dir)).toEqual({ token: first, source: 'file', created: false });
    expect(readdirSync(dir)).toEqual(['admin-token']); // nothing left aside
  });
});
