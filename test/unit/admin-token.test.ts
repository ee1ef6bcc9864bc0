import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
});
