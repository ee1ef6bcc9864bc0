import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoKeyPath, ensureDemoKey } from '../../src/services/demo-key.js';
import { findKey } from '../../src/storage/keys-repo.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';

let testDb: TestDatabase;
const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-demo-key-'));

beforeAll(async () => {
  testDb = await freshDatabase();
});
afterAll(async () => {
  await testDb.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('demo key on a fresh database', () => {
  it('is minted once and kept in DATA_DIR/demo-key, readable by the owner only', async () => {
    const demo = await ensureDemoKey(testDb.database.db, dataDir);
    expect(demo?.path).toBe(demoKeyPath(dataDir));
    expect(readFileSync(demoKeyPath(dataDir), 'utf8').trim()).toBe(demo!.key);
    expect(statSync(demoKeyPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(await findKey(testDb.database.db, demo!.keyId)).toMatchObject({ userId: 'demo', revokedAt: null });
    // A database with keys mints no second demo key and leaves the file alone.
    expect(await ensureDemoKey(testDb.database.db, dataDir)).toBeNull();
    expect(readFileSync(demoKeyPath(dataDir), 'utf8').trim()).toBe(demo!.key);
  });
});
