import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/domain/api-keys.js';
import { queryRows } from '../../src/storage/db.js';
import { findKey } from '../../src/storage/keys-repo.js';
import { migrationFiles } from '../../src/storage/migrate.js';
import { adminHeaders, bearer, createTestApp, type TestApp } from '../support/app.js';
import { HARNESS_URL, registerHarnessWrite } from '../support/harness-write.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ extraRoutes: registerHarnessWrite });
});
afterAll(async () => t.close());

describe('error envelope', () => {
  it('answers unknown routes with a JSON 404', async () => {
    const res = await t.app.inject({ url: '/api/agent/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'no route GET /api/agent/nope' });
  });

  it('answers invalid JSON with 400, a body over 64 KB with 413, never 5xx', async () => {
    const { key } = await t.newKey();
    const headers = { ...bearer(key), 'content-type': 'application/json' };
    const broken = await t.app.inject({ method: 'POST', url: HARNESS_URL, headers, payload: '{"amount": 1,' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ error: 'invalid_request', field: 'body' });
    const huge = await t.app.inject({ method: 'POST', url: HARNESS_URL, headers, payload: JSON.stringify({ pad: 'x'.repeat(70_000) }) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error).toBe('payload_too_large');
    for (const [type, payload] of [['application/xml', '<a/>'], ['text/plain', 'hello'], ['text/plain; charset=utf-8', '{"amount": 1}']]) {
      const other = await t.app.inject({ method: 'POST', url: HARNESS_URL, headers: { ...bearer(key), 'content-type': type! }, payload });
      expect(other.statusCode, type).toBe(415);
      expect(other.json(), type).toMatchObject({ error: 'unsupported_media_type' });
    }
  });

  it('never leaks stacks or SQL in 5xx bodies', async () => {
    const { key } = await t.newKey();
    const res = await t.app.inject({ method: 'POST', url: HARNESS_URL, headers: bearer(key), payload: { amount: 1e12, idempotencyKey: 'too-much' } });
    // The book's CHECK constraint refuses a negative balance deep in SQL; the caller sees only the envelope.
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'internal_error', message: 'an unexpected error occurred' });
  });
});

describe('admin surface', () => {
  it('needs the admin token', async () => {
    expect((await t.app.inject({ url: '/api/admin/keys' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/admin/keys', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
  });

  it('creates a key shown once, stores only its hash, lists, publishes and revokes it', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/keys',
      headers: adminHeaders,
      payload: { userId: 'owner-1', name: 'Scout Bot', model: 'my-llm', scopes: ['read', 'trade:spot'], public: true },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body.key).toMatch(/^sk_live_[A-Za-z0-9]{43}$/);
    expect(body).toMatchObject({ userId: 'owner-1', scopes: ['read', 'trade:spot'], handle: `a${body.keyId}-scout-bot`, agentModel: 'my-llm' });
    const stored = await findKey(t.ctx.database.db, body.keyId);
    expect(stored!.keyHash).toBe(hashKey(body.key));
    expect(JSON.stringify(stored)).not.toContain(body.key);

    const listed = (await t.app.inject({ url: '/api/admin/keys?userId=owner-1', headers: adminHeaders })).json().keys;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(body.key);

    const unpublished = await t.app.inject({ method: 'PATCH', url: `/api/admin/keys/${body.keyId}`, headers: adminHeaders, payload: { public: false, agentModel: null } });
    expect(unpublished.json()).toMatchObject({ public: false, handle: null, agentModel: null });

    const me = await t.app.inject({ url: '/api/agent/me', headers: bearer(body.key) });
    expect(me.json()).toMatchObject({ userId: 'owner-1', agentName: 'Scout Bot', agentModel: null });

    const revoked = await t.app.inject({ method: 'POST', url: `/api/admin/keys/${body.keyId}/revoke`, headers: adminHeaders });
    expect(revoked.json().revokedAt).toBeTypeOf('string');
    expect((await t.app.inject({ url: '/api/agent/me', headers: bearer(body.key) })).statusCode).toBe(401);
    // a revoked key stays retired: it cannot be published or renamed
    const republish = await t.app.inject({ method: 'PATCH', url: `/api/admin/keys/${body.keyId}`, headers: adminHeaders, payload: { public: true } });
    expect(republish.statusCode).toBe(409);
    expect(republish.json().error).toBe('key_revoked');
    const afterRevoke = (await t.app.inject({ url: '/api/admin/keys?userId=owner-1', headers: adminHeaders })).json().keys as { keyId: number; public: boolean }[];
    expect(afterRevoke.find((k) => k.keyId === body.keyId)?.public).toBe(revoked.json().public);
  });

  it('rotates a key: a new secret shown once for the same key id and book; the old one gets 401 at once', async () => {
    const { key, keyId } = await t.newKey();
    const before = (await t.app.inject({ url: '/api/agent/me', headers: bearer(key) })).json(); // the old key is now cached
    const rotate = () => t.app.inject({ method: 'POST', url: `/api/admin/keys/${keyId}/rotate`, headers: adminHeaders });
    const rotated = await rotate();
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json();
    expect(body.key).toMatch(/^sk_live_[A-Za-z0-9]{43}$/);
    expect(body.key).not.toBe(key);
    expect(body).toMatchObject({ keyId, keyPrefix: body.key.slice(0, 14), revokedAt: null });
    expect((await findKey(t.ctx.database.db, keyId))!.keyHash).toBe(hashKey(body.key));
    expect((await t.app.inject({ url: '/api/agent/me', headers: bearer(key) })).statusCode).toBe(401);
    const after = (await t.app.inject({ url: '/api/agent/me', headers: bearer(body.key) })).json();
    expect(after).toEqual(before);
    // each rotation retires the secret before it
    const again = (await rotate()).json();
    expect((await t.app.inject({ url: '/api/agent/me', headers: bearer(body.key) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/agent/me', headers: bearer(again.key) })).statusCode).toBe(200);
    // a revoked key stays retired; an unknown one is 404
    await t.app.inject({ method: 'POST', url: `/api/admin/keys/${keyId}/revoke`, headers: adminHeaders });
    const revoked = await rotate();
    expect([revoked.statusCode, revoked.json().error]).toEqual([409, 'key_revoked']);
    expect((await t.app.inject({ url: '/api/agent/me', headers: bearer(again.key) })).statusCode).toBe(401);
    for (const id of ['99999', '0']) expect((await t.app.inject({ method: 'POST', url: `/api/admin/keys/${id}/rotate`, headers: adminHeaders })).json().error, id).toBe('key_not_found');
  });

  it('creates an owner once: 201, then 200 for the same id', async () => {
    const create = () => t.app.inject({ method: 'POST', url: '/api/admin/users', headers: adminHeaders, payload: { userId: 'owner-twice' } });
    const first = await create();
    expect(first.statusCode).toBe(201);
    const again = await create();
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ userId: 'owner-twice' });
    const owners = (await t.app.inject({ url: '/api/admin/users', headers: adminHeaders })).json();
    expect(JSON.stringify(owners).match(/owner-twice/g)).toHaveLength(1);
  });

  it('validates admin input and answers 404 for unknown keys', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/admin/keys', headers: adminHeaders, payload: { userId: 'x', scopes: ['admin'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toMatch(/^body\.scopes/);
    const noUser = await t.app.inject({ method: 'POST', url: '/api/admin/keys', headers: adminHeaders, payload: { name: 'x' } });
    expect(noUser.json().field).toBe('body.userId');
    const missing = await t.app.inject({ method: 'POST', url: '/api/admin/keys/99999/revoke', headers: adminHeaders });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('key_not_found');
  });

  it('reports books that match their journal (doctor)', async () => {
    const { key } = await t.newKey();
    await t.app.inject({ method: 'POST', url: HARNESS_URL, headers: bearer(key), payload: { amount: 7, idempotencyKey: 'doc' } });
    const report = (await t.app.inject({ url: '/api/admin/doctor', headers: adminHeaders })).json();
    expect(report.ok).toBe(true);
    expect(report.walletsChecked).toBeGreaterThanOrEqual(1);
    expect(report.changedMigrations).toEqual([]);
  });

  it('names migrations whose file changed since the database applied them (doctor; a warning, books still ok)', async () => {
    const db = t.testDb.database.db;
    const [first] = migrationFiles().map((f) => f.name);
    const [kept] = await queryRows<{ checksum: string }>(db, sql`select checksum from schema_migrations where name = ${first}`);
    await db.execute(sql`update schema_migrations set checksum = 'earlier text' where name = ${first}`);
    try {
      const report = (await t.app.inject({ url: '/api/admin/doctor', headers: adminHeaders })).json();
      expect(report).toMatchObject({ ok: true, changedMigrations: [first] });
    } finally {
      await db.execute(sql`update schema_migrations set checksum = ${kept!.checksum} where name = ${first}`);
    }
  });
});
