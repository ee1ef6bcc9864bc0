import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createTestApp, type TestApp } from '../support/app.js';

// Issue 12 items 1–4: control characters, numeric edges, limits and body coercion never reach SQL.
let t: TestApp;
let key: string;
let keyId: number;
beforeAll(async () => {
  t = await createTestApp();
  t.market.set('1', 50_000, t.clock.now());
  ({ key, keyId } = await t.newKey());
});
afterAll(async () => t.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = bearer(key)) =>
  t.app.inject({ method: 'POST', url, headers, payload: payload as object });
const get = (url: string, headers: Record<string, string> = bearer(key)) => t.app.inject({ method: 'GET', url, headers });

function expectInvalid(res: { statusCode: number; json(): any }, field: string): void {
  expect(res.statusCode, `${field}: ${JSON.stringify(res.json())}`).toBe(400);
  expect(res.json()).toMatchObject({ error: 'invalid_request', field });
  expect(res.json().message).toContain(field);
}

describe('control characters (issue 12 items 1 and 2)', () => {
  it('refuses NUL in an agentTrace string and the ledger keeps recording afterwards', async () => {
    const res = await post('/api/agent/spot/quote', {
      coinId: '1',
      side: 'buy',
      quantity: 0.001,
      agentTrace: { runId: 'a\u0000b' },
    });
    expectInvalid(res, 'body.agentTrace.runId');
    const after = await get('/api/agent/me');
    expect(after.statusCode).toBe(200);
    expect(after.headers['x-service-ledger-event-id']).toBeTruthy();
    await t.ctx.ledger.flush();
    const ledger = await get('/api/agent/ledger?limit=5');
    expect(ledger.json().data.length).toBeGreaterThan(0);
  });

  it('refuses NUL and other C0 controls in stored strings with 400 naming the field', async () => {
    const cases: Array<[string, unknown, string, Record<string, string>?]> = [
      ['/api/admin/keys', { userId: 'owner-x', name: 'bad\u0000name' }, 'body.name', adminHeaders],
      ['/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: 'k\u0000' }, 'body.idempotencyKey'],
      ['/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: 'k\u0007' }, 'body.idempotencyKey'],
      ['/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: 'k\nv' }, 'body.idempotencyKey'],
      ['/api/agent/futures/open', { coinId: '1', side: 'long', leverage: 2, marginMusd: 100, idempotencyKey: '\u0000' }, 'body.idempotencyKey'],
      ['/api/agent/pm/opportunity', { kind: 'abstained', source: 'x\u0000' }, 'body.source'],
      ['/api/agent/pm/opportunity', { kind: 'abstained', thesis: 'lone \ud800 surrogate' }, 'body.thesis'],
      ['/api/agent/pm/opportunity', { kind: 'abstained', provenance: { skillVersions: { 'k\u0000': '1' } } }, 'body.provenance.skillVersions'],
      ['/api/agent/pm/opportunity', { kind: 'abstained', provenance: { providerVerified: { deep: ['ok', 'n\u0000'] } } }, 'body.provenance.providerVerified.deep.1'],
      ['/api/admin/competitions', { slug: 'c1', title: 'T\u0000', startsAt: '2026-11-01T00:00:00Z', endsAt: '2026-12-01T00:00:00Z' }, 'body.title', adminHeaders],
    ];
    for (const [url, body, field, headers] of cases) expectInvalid(await post(url, body, headers), field);
  });

  it('lets free text keep tab, LF and CR but not NUL', async () => {
    const ok = await post(
      '/api/admin/competitions',
      { slug: 'free-text', title: 'T', description: 'line one\nline\ttwo\r\n', startsAt: '2026-11-01T00:00:00Z', endsAt: '2026-12-01T00:00:00Z' },
      adminHeaders,
    );
    expect(ok.statusCode, ok.body).toBe(201);
    const bad = await post(
      '/api/admin/competitions',
      { slug: 'free-text-2', title: 'T', description: 'nul\u0000', startsAt: '2026-11-01T00:00:00Z', endsAt: '2026-12-01T00:00:00Z' },
      adminHeaders,
    );
    expectInvalid(bad, 'body.description');
  });

  it('refuses controls in query strings and path parameters', async () => {
    expectInvalid(await get('/api/agent/ledger?runId=a%00b'), 'query.runId');
    const path = await get('/api/competitions/%00');
    expect(path.statusCode).toBe(404);
    expect(path.json().error).toBe('competition_not_found');
    const coin = await get('/api/agent/market/%01');
    expect(coin.statusCode).toBe(404);
    expect(coin.json().error).toBe('coin_not_found');
  });
});

describe('numbers (issue 12 items 2 and 3)', () => {
  it('answers 400 for Infinity, NaN, 1e400 and out-of-range limits and never reaches SQL', async () => {
    const cases: Array<[string, string]> = [
      ['/api/agent/ledger?limit=Infinity', 'query.limit'],
      ['/api/agent/ledger?limit=1e400', 'query.limit'],
      ['/api/agent/ledger?limit=NaN', 'query.limit'],
      ['/api/agent/orders/open?limit=Infinity', 'query.limit'],
      ['/api/agent/trades?limit=-Infinity', 'query.limit'],
      ['/api/agent/equity-curve?days=Infinity', 'query.days'],
      ['/api/coins/top-gainers?limit=Infinity', 'query.limit'],
      ['/api/arena/decisions?limit=-Infinity', 'query.limit'],
      ['/api/arena/agents/a1-x/scorecard/runs?before=1e308', 'query.before'],
      ['/api/arena/agents/a1-x/scorecard/runs?before=Infinity', 'query.before'],
      ['/api/arena/agents/a1-x/scorecard/runs?limit=Infinity', 'query.limit'],
      ['/api/prediction-markets/events?limit=Infinity', 'query.limit'],
      ['/api/prediction-markets/resolved?limit=Infinity', 'query.limit'],
      ['/api/prediction-markets/canonical?limit=Infinity', 'query.limit'],
    ];
    for (const [url, field] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expectInvalid(res, field);
    }
  });

  it('answers 404 (unknown) or 400 for ids beyond 2^53 - 1, never 500', async () => {
    for (const url of [
      '/api/admin/keys/1e308/revoke',
      `/api/admin/keys/${'9'.repeat(40)}/revoke`,
    ]) {
      const res = await post(url, undefined, adminHeaders);
      expect([400, 404]).toContain(res.statusCode);
    }
    // key ids are PostgreSQL integers: past 2^31 - 1 no key can have the id (the database is never asked)
    for (const id of [2 ** 31, 2 ** 40]) {
      for (const res of [
        await post(`/api/admin/keys/${id}/revoke`, undefined, adminHeaders),
        await t.app.inject({ method: 'PATCH', url: `/api/admin/keys/${id}`, headers: adminHeaders, payload: { agentName: 'x' } }),
      ]) {
        expect(res.statusCode, res.body).toBe(404);
        expect(res.json().error).toBe('key_not_found');
      }
    }
    const res = await get(`/api/arena/scorecard-runs/${'1'.repeat(40)}`, {});
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('run_not_found');
    // exponent text is not an id
    expectInvalid(await get('/api/arena/scorecard-runs/1e308', {}), 'params.id');
    const created = await post('/api/admin/competitions', { slug: 'ids', title: 'T', startsAt: '2026-11-01T00:00:00Z', endsAt: '2026-12-01T00:00:00Z' }, adminHeaders);
    expect(created.statusCode).toBe(201);
    for (const id of [1e308, 2 ** 63, 2 ** 31, 2 ** 40]) {
      expectInvalid(await post('/api/admin/competitions/ids/entries', { keyId: id }, adminHeaders), 'body.keyId');
    }
    // a JSON number literal too large for a double parses to Infinity and is refused
    const inf = await t.app.inject({
      method: 'POST',
      url: '/api/admin/competitions/ids/entries',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: '{"keyId": 1e400}',
    });
    expectInvalid(inf, 'body.keyId');
  });
});

describe('query numbers and date-times outside what they mean', () => {
  it('answers 400 for numeric query text that is not plain decimal (0x10, 0b11, +5, 1e1, padded)', async () => {
    for (const [url, field] of [
      ['/api/agent/trades?limit=0x10', 'query.limit'],
      ['/api/agent/trades?limit=0b11', 'query.limit'],
      ['/api/agent/trades?limit=%2B5', 'query.limit'],
      ['/api/agent/trades?limit=1e1', 'query.limit'],
      ['/api/agent/trades?limit=%205', 'query.limit'],
      ['/api/agent/ledger?offset=0o7', 'query.offset'],
      ['/api/agent/equity-curve?days=1e2', 'query.days'],
      ['/api/arena?page=0x2', 'query.page'],
    ] as const) {
      expectInvalid(await get(url), field);
    }
    expect((await get('/api/agent/trades?limit=16')).json().count).toBeLessThanOrEqual(16);
    expect((await get('/api/arena?page=2')).statusCode).toBe(200);
    // a number field (not an integer one) takes a JSON number's text, exponents included (MCP sends String(1e21) = "1e+21")
    for (const v of ['1e6', '1e%2B21', '.5', '2.', '-0']) expect((await get(`/api/prediction-markets/resolved?minVolume=${v}`, {})).statusCode, v).not.toBe(400);
    for (const v of ['0x10', '%2B5', '1e', 'e5']) expectInvalid(await get(`/api/prediction-markets/resolved?minVolume=${v}`, {}), 'query.minVolume');
  });

  it('answers 400 for a date-time whose instant is outside years 1..9999 or unparseable, never 500', async () => {
    const instants = ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00%2B14:00', '9999-12-31T23:59:59-14:00', '2026-06-30T23:59:60Z'];
    for (const at of instants) {
      for (const [path, field] of [
        ['/api/agent/trades?updatedSince=', 'query.updatedSince'],
        ['/api/agent/orders/open?updatedSince=', 'query.updatedSince'],
        ['/api/agent/positions/futures?updatedSince=', 'query.updatedSince'],
        ['/api/agent/positions/pm?updatedSince=', 'query.updatedSince'],
        ['/api/agent/ledger?from=', 'query.from'],
        ['/api/agent/ledger?to=', 'query.to'],
        ['/api/agent/ledger/export?from=', 'query.from'],
      ] as const) {
        expectInvalid(await get(`${path}${at}`), field);
      }
    }
    const competition = { slug: 'far-past', title: 'T', startsAt: '0000-01-01T00:00:00Z', endsAt: '2026-12-01T00:00:00Z' };
    expectInvalid(await post('/api/admin/competitions', competition, adminHeaders), 'body.startsAt');
    // the ends of the range are served
    for (const at of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) expect((await get(`/api/agent/trades?updatedSince=${at}`)).statusCode).toBe(200);
  });
});

describe('JSON bodies are not coerced (issue 12 item 4)', () => {
  it('refuses booleans for numbers and numbers for strings in bodies', async () => {
    expectInvalid(await post('/api/agent/spot/quote', { coinId: '1', side: 'buy', quantity: true }), 'body.quantity');
    expectInvalid(await post('/api/agent/futures/close', { positionId: 1, fraction: true, idempotencyKey: 'c1' }), 'body.fraction');
    expectInvalid(
      await post('/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: 12345 }),
      'body.idempotencyKey',
    );
    expectInvalid(await post('/api/agent/spot/quote', { coinId: 1, side: 'buy', quantity: 0.001 }), 'body.coinId');
  });

  it('still coerces query strings and path parameters', async () => {
    const res = await get('/api/agent/ledger?limit=2&offset=0');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.length).toBeLessThanOrEqual(2);
    expect((await post(`/api/admin/keys/${keyId}/revoke`, undefined, adminHeaders)).statusCode).toBe(200);
  });
});
