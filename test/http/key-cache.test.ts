import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey, updateKey } from '../../src/storage/keys-repo.js';
import { agentMe as me, createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('cached authentication', () => {
  it('refuses a key revoked straight in the database (the CLI fallback path) once the change is announced', async () => {
    const { key, keyId } = await t.newKey();
    expect((await me(t, key)).statusCode).toBe(200); // now cached
    await revokeKey(t.ctx.database.db, keyId, new Date());
    await expect.poll(async () => (await me(t, key)).statusCode, { timeout: 5000, interval: 20 }).toBe(401);
  });

  it('serves a renamed key’s new identity after an update', async () => {
    const { key, keyId } = await t.newKey();
    expect((await me(t, key)).json().agentName).toBeNull();
    await updateKey(t.ctx.database.db, keyId, { agentName: 'Renamed' });
    await expect.poll(async () => (await me(t, key)).json().agentName, { timeout: 5000, interval: 20 }).toBe('Renamed');
  });
});
