import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooks } from '../../src/services/doctor.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { createTestApp, bearer, type TestApp } from '../support/app.js';
import { HARNESS_URL, registerHarnessWrite } from '../support/harness-write.js';
import { keyedRouteSecurity } from '../support/security.js';

let t: TestApp;
let defaults: TestApp;
beforeAll(async () => {
  // Budgets are raised so the concurrency tests measure idempotency, not rate limits.
  t = await createTestApp({ extraRoutes: registerHarnessWrite, config: { agentRpm: 10_000, tradeWpm: 10_000 } });
  defaults = await createTestApp({ extraRoutes: registerHarnessWrite });
});
afterAll(async () => {
  await t.close();
  await defaults.close();
});

const freeze = (key: string, payload: object) => t.app.inject({ method: 'POST', url: HARNESS_URL, headers: bearer(key), payload });

describe('idempotent trade writes', () => {
  it('executes 50 concurrent identical requests once and replays the rest', async () => {
    const { key, keyId } = await t.newKey();
    const payload = { amount: 125.5, idempotencyKey: 'intent-1' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => freeze(key, payload)));
    const created = responses.filter((r) => r.statusCode === 201);
    const replays = responses.filter((r) => r.statusCode === 200);
    expect(created).toHaveLength(1);
    expect(replays).toHaveLength(49);
    for (const r of replays) expect(r.json()).toMatchObject({ frozen: 125.5, idempotentReplay: true });
    expect(created[0]!.json().idempotentReplay).toBeUndefined();
    const wallet = await findWallet(t.ctx.database.db, keyId);
    expect(wallet!.frozen.toNumber()).toBe(125.5);
    expect(wallet!.available.toNumber()).toBe(50_000 - 125.5);
    expect((await checkBooks(t.ctx.database.db)).ok).toBe(true);
  });

  it('answers 409 when the same key carries a different request, and changes nothing', async () => {
    const { key, keyId } = await t.newKey();
    expect((await freeze(key, { amount: 10, idempotencyKey: 'k' })).statusCode).toBe(201);
    const conflict = await freeze(key, { amount: 11, idempotencyKey: 'k' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ error: 'idempotency_key_conflict', field: 'body.idempotencyKey' });
    expect((await findWallet(t.ctx.database.db, keyId))!.frozen.toNumber()).toBe(10);
  });

  it('ignores agentTrace when deciding "same request", and marks the replay in the ledger', async () => {
    const { key } = await t.newKey();
    await freeze(key, { amount: 1, idempotencyKey: 'trace', agentTrace: { runId: 'r1' } });
    const replay = await freeze(key, { amount: 1, idempotencyKey: 'trace', agentTrace: { runId: 'r2' } });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['x-service-ledger-status']).toBe('idempotent_replay');
  });

  it('scopes keys per API key: the same idempotencyKey on two keys are two intents', async () => {
    const a = await t.newKey();
    const b = await t.newKey();
    expect((await freeze(a.key, { amount: 2, idempotencyKey: 'shared' })).statusCode).toBe(201);
    expect((await freeze(b.key, { amount: 2, idempotencyKey: 'shared' })).statusCode).toBe(201);
  });

  it('leaves neither money moved nor a record when the write crashes, so a retry executes', async () => {
    const { key, keyId } = await t.newKey();
    const crashed = await freeze(key, { amount: 5, idempotencyKey: 'crash', fail: true });
    expect(crashed.statusCode).toBe(500);
    expect(crashed.json()).toEqual({ error: 'internal_error', message: 'simulated crash after posting' });
    const wallet = await findWallet(t.ctx.database.db, keyId);
    expect(wallet === null || wallet.frozen.toNumber() === 0).toBe(true);
    const retry = await freeze(key, { amount: 5, idempotencyKey: 'crash' });
    expect(retry.statusCode).toBe(201);
    expect((await findWallet(t.ctx.database.db, keyId))!.frozen.toNumber()).toBe(5);
  });

  it('funds a new book exactly once under concurrent first use', async () => {
    const { key, keyId } = await t.newKey();
    await Promise.all(Array.from({ length: 20 }, (_, i) => freeze(key, { amount: 1, idempotencyKey: `first-${i}` })));
    const wallet = (await findWallet(t.ctx.database.db, keyId))!;
    expect(wallet.available.plus(wallet.frozen).toNumber()).toBe(50_000);
    expect(wallet.frozen.toNumber()).toBe(20);
    expect((await checkBooks(t.ctx.database.db)).ok).toBe(true);
  });

  it('rejects bad input with 400 naming the field, moving nothing', async () => {
    const { key, keyId } = await t.newKey();
    const cases: [object, string][] = [
      [{ amount: 1 }, 'body.idempotencyKey'],
      [{ amount: -1, idempotencyKey: 'x' }, 'body.amount'],
      [{ amount: 1, idempotencyKey: 'x', surprise: true }, 'body.surprise'],
      [{ amount: 1, idempotencyKey: 'x', agentTrace: { confidence: 2 } }, 'body.agentTrace.confidence'],
    ];
    for (const [payload, field] of cases) {
      const res = await freeze(key, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field });
    }
    expect(await findWallet(t.ctx.database.db, keyId)).toBeNull();
  });
});

let n = 0;
keyedRouteSecurity(() => defaults, {
  method: 'POST',
  url: HARNESS_URL,
  scope: 'read',
  tradeWrite: true,
  payload: () => ({ amount: 1, idempotencyKey: `sec-${(n += 1)}` }),
});
