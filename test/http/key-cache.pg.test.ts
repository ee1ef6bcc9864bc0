import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentMe as me, createTestApp, type TestApp } from '../support/app.js';
import { TEST_DATABASE_URL } from '../support/db.js';

describe.skipIf(!TEST_DATABASE_URL)('cached authentication across processes (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('a key revoked through one API process is refused by another', async () => {
    const other = await createTestApp({ testDb: { ...t.testDb, database: await t.testDb.openAnother() } });
    try {
      const { key, keyId } = await t.newKey();
      expect((await me(other, key)).statusCode).toBe(200); // cached in the other process
      const revoked = await t.app.inject({ method: 'POST', url: `/api/admin/keys/${keyId}/revoke`, headers: { authorization: `Bearer ${t.ctx.adminToken}` } });
      expect(revoked.statusCode).toBe(200);
      expect((await me(t, key)).statusCode).toBe(401);
      await expect.poll(async () => (await me(other, key)).statusCode, { timeout: 5000, interval: 20 }).toBe(401);
    } finally {
      await other.app.close();
    }
  });

  it('a key rotated through one API process: the old secret is refused by another, the new one served', async () => {
    const other = await createTestApp({ testDb: { ...t.testDb, database: await t.testDb.openAnother() } });
    try {
      const { key, keyId } = await t.newKey();
      expect((await me(other, key)).statusCode).toBe(200); // cached in the other process
      const rotated = await t.app.inject({ method: 'POST', url: `/api/admin/keys/${keyId}/rotate`, headers: { authorization: `Bearer ${t.ctx.adminToken}` } });
      expect(rotated.statusCode).toBe(200);
      expect((await me(t, key)).statusCode).toBe(401);
      await expect.poll(async () => (await me(other, key)).statusCode, { timeout: 5000, interval: 20 }).toBe(401);
      expect((await me(other, rotated.json().key)).json().keyId).toBe(keyId);
    } finally {
      await other.app.close();
    }
  });
});
if (!TEST_DATABASE_URL) console.log('key-cache: cross-process test skipped (set TEST_DATABASE_URL to run it on PostgreSQL)');
