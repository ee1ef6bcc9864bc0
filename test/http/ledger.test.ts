import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, bearer, type TestApp } from '../support/app.js';
import { HARNESS_URL, registerHarnessWrite } from '../support/harness-write.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ extraRoutes: registerHarnessWrite });
});
afterAll(async () => t.close());

const get = (key: string, url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ url, headers: { ...bearer(key), ...headers } });

describe('private ledger', () => {
  it('records every call with its ids, status, trace headers and sanitized summaries', async () => {
    const { key } = await t.newKey();
    const me = await get(key, '/api/agent/me', {
      'x-service-run-id': 'run-7',
      'x-service-decision-id': 'dec-1',
      'x-service-strategy-label': 'momentum',
      'x-service-confidence': '0.75',
    });
    const eventId = Number(me.headers['x-service-ledger-event-id']);
    // Reference B8: the ledger id is an integer, the same in the header and the row.
    expect(Number.isSafeInteger(eventId) && eventId > 0).toBe(true);
    expect(me.headers['x-service-ledger-status']).toBe('success');
    const list = (await get(key, '/api/agent/ledger?runId=run-7')).json();
    expect(list.pagination).toEqual({ limit: 25, offset: 0, hasMore: false, total: 1 });
    expect(list.filters).toEqual({ runId: 'run-7' });
    const row = list.data[0];
    expect(row).toMatchObject({
      id: eventId,
      method: 'GET',
      endpoint: '/api/agent/me',
      eventType: 'read',
      statusCode: 200,
      ledgerStatus: 'success',
      runId: 'run-7',
      decisionId: 'dec-1',
      strategyLabel: 'momentum',
      confidence: 0.75,
      blockReasons: [],
    });
    expect(row.responseSummary.keyId).toBeTypeOf('number');
    // A UTF-8 header value (as Node reads its bytes: one latin1 character per byte) is stored as sent.
    const asBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    await get(key, '/api/agent/me', { 'x-service-run-id': asBytes('run-ü-🚀') });
    expect((await get(key, `/api/agent/ledger?runId=${encodeURIComponent('run-ü-🚀')}`)).json().data).toHaveLength(1);
    // Bytes that are not UTF-8 keep HTTP's latin1 reading.
    await get(key, '/api/agent/me', { 'x-service-run-id': 'run-\u00fc' });
    expect((await get(key, `/api/agent/ledger?runId=${encodeURIComponent('run-ü')}`)).json().data).toHaveLength(1);
    expect(row.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const again = await get(key, '/api/agent/me');
    expect(Number(again.headers['x-service-ledger-event-id'])).toBeGreaterThan(eventId);
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('keeps API keys out of the stored summaries under any parameter or field name', async () => {
    const { key } = await t.newKey();
    const query = ['x-api-key', 'api-key', 'accessToken', 'sessionToken', 'client.secret', 'sig', 'note'].map((n) => `${n}=${key}`).join('&');
    await get(key, `/api/agent/me?${query}&auth=${encodeURIComponent(`Bearer ${key}`)}`);
    await t.app.inject({
      method: 'POST',
      url: HARNESS_URL,
      headers: bearer(key),
      payload: { amount: 2, idempotencyKey: 'idem-secret', 'x-api-key': key, accessToken: key, memo: `mine is ${key}!` },
    });
    await t.ctx.ledger.flush();
    const rows = (await get(key, '/api/agent/ledger/export')).json();
    const text = JSON.stringify(rows);
    expect(text).toContain('/api/agent/me');
    expect(text).toContain(HARNESS_URL.split('?')[0]);
    expect(text).not.toContain(key.slice(8));
    expect(text).toContain('mine is sk_live_[redacted]!'); // a key under a name no rule knows
  });

  it('records rejections and keeps each key’s ledger private', async () => {
    const a = await t.newKey(['trade:spot']);
    const b = await t.newKey();
    const refused = await get(a.key, '/api/agent/ledger');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['x-service-ledger-status']).toBe('rejected');
    const bRows = (await get(b.key, '/api/agent/ledger?limit=100')).json().data as { id: number }[];
    expect(bRows.map((r) => r.id)).not.toContain(Number(refused.headers['x-service-ledger-event-id']));
  });

  it('stores body trace metadata (rationale private) and the idempotency key of writes', async () => {
    const { key } = await t.newKey();
    await t.app.inject({
      method: 'POST',
      url: HARNESS_URL,
      headers: bearer(key),
      payload: { amount: 3, idempotencyKey: 'idem-9', agentTrace: { runId: 'r-body', rationaleSummary: 'cheap', confidence: 0.2 } },
    });
    const row = (await get(key, '/api/agent/ledger?eventType=write')).json().data[0];
    expect(row).toMatchObject({ venue: 'spot', eventType: 'write', idempotencyKey: 'idem-9', runId: 'r-body', rationaleSummary: 'cheap', confidence: 0.2 });
    expect(row.requestSummary.body).toEqual({ amount: 3, agentTrace: { runId: 'r-body', confidence: 0.2 } });
  });

  it('names the idempotency key of a write refused before its handler ran', async () => {
    const { key } = await t.newKey();
    const order = (payload: object) => t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload });
    const refused = await order({ coinId: '1', side: 'buy', orderType: 'market', quantity: -1, idempotencyKey: 'bad-qty-1' });
    expect(refused.statusCode).toBe(400);
    // One length for every write's key: 129 characters is refused, and not stored as a key.
    const tooLong = 'k'.repeat(129);
    expect((await order({ coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: tooLong })).statusCode).toBe(400);
    const pmOpen = await t.app.inject({ method: 'POST', url: '/api/agent/pm/open', headers: bearer(key), payload: { source: 'kalshi', slug: 'some-market', outcomeExternalMarketId: 'yes-1', stakeMusd: 10, idempotencyKey: tooLong } });
    expect(pmOpen.statusCode).toBe(400);
    expect(pmOpen.json()).toMatchObject({ field: 'body.idempotencyKey' });
    const rows = (await get(key, '/api/agent/ledger?eventType=write&limit=10')).json().data as { endpoint: string; ledgerStatus: string; idempotencyKey: string | null }[];
    const byEndpoint = rows.map((r) => [r.endpoint, r.ledgerStatus, r.idempotencyKey]);
    expect(byEndpoint).toContainEqual(['/api/agent/spot/order', 'rejected', 'bad-qty-1']);
    expect(rows.filter((r) => r.idempotencyKey === null)).toHaveLength(2);
  });

  it('filters by status, time and paginates newest first', async () => {
    const { key } = await t.newKey();
    for (let i = 0; i < 3; i += 1) {
      await get(key, '/api/agent/me');
      t.clock.advance(1000);
    }
    const all = (await get(key, '/api/agent/ledger?limit=2&status=success')).json();
    expect(all.data).toHaveLength(2);
    expect(all.pagination.hasMore).toBe(true);
    expect(all.data[0].startedAt >= all.data[1].startedAt).toBe(true);
    const from = new Date(t.clock.now() - 1500).toISOString();
    const recent = (await get(key, `/api/agent/ledger?from=${encodeURIComponent(from)}`)).json();
    expect(recent.data.every((r: { startedAt: string }) => r.startedAt >= from)).toBe(true);
    expect((await get(key, '/api/agent/ledger?limit=0')).statusCode).toBe(400);
    expect((await get(key, '/api/agent/ledger?offset=-1')).json().field).toBe('query.offset');
    expect((await get(key, '/api/agent/ledger?from=yesterday')).json().field).toBe('query.from');
  });

  it('rejects an out-of-range confidence header with 400', async () => {
    const { key } = await t.newKey();
    const res = await get(key, '/api/agent/me', { 'x-service-confidence': '7' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', field: 'x-service-confidence' });
  });

  it('exports up to 1,000 rows with a run manifest when filtered by runId', async () => {
    const { key, keyId } = await t.newKey();
    await get(key, '/api/agent/me', { 'x-service-run-id': 'export-run' });
    await get(key, '/api/agent/me');
    const exported = (await get(key, '/api/agent/ledger/export?runId=export-run')).json();
    expect(exported).toMatchObject({ apiKeyId: keyId, count: 1, maxRows: 1000, futures: [], futuresEvents: [] });
    expect(exported.run.schema).toBe('svc.agentRunEvidence.v1');
    expect(exported.run.summary).toMatchObject({ runId: 'export-run', eventCount: 1, truncated: false });
    const plain = (await get(key, '/api/agent/ledger/export')).json();
    expect(plain.run).toBeNull();
    expect(plain.count).toBeGreaterThanOrEqual(2);
    expect(exported.run.outcomeSummary).toBeNull(); // the run named no trade entity
  });

  it('counts a write as quoted only after a quote on its instrument within 5 minutes, in the run manifest as in performance', async () => {
    t.market.set('1', 50_000, t.clock.now());
    t.market.set('1027', 2_000, t.clock.now());
    const { key } = await t.newKey(['read', 'trade:spot']);
    let n = 0;
    const call = async (path: string, body: object) => {
      const res = await t.app.inject({ method: 'POST', url: `/api/agent/${path}`, headers: { ...bearer(key), 'x-service-run-id': 'quoted-run' }, payload: body });
      expect(res.statusCode, res.body).toBeLessThan(300);
    };
    const order = (coinId: string) => call('spot/order', { coinId, side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: `q-${(n += 1)}` });
    await call('spot/quote', { coinId: '1', side: 'buy', quantity: 0.01 });
    await order('1'); // quoted
    await order('1027'); // a quote on the venue, not on this coin
    t.clock.advance(6 * 60_000);
    t.market.set('1', 50_000, t.clock.now());
    await order('1'); // its quote is older than 5 minutes
    await t.ctx.ledger.flush();
    const run = (await get(key, '/api/agent/ledger/export?runId=quoted-run')).json().run;
    expect(run.summary).toMatchObject({ quoteCount: 1, writeCount: 3 });
    expect(run.summary.quoteBeforeTradeRate).toBe(0.33333333); // 8 places, as auditStats sends it
    expect(run.evidenceChecklist.items.find((i: { id: string }) => i.id === 'quote_before_trade')).toMatchObject({ status: 'warn', detail: '1 of 3 writes' });
    const performance = (await get(key, '/api/agent/performance')).json();
    expect(performance.auditStats.quoteBeforeTradeRate).toBe(0.33333333);
  });

  it('sums what the run’s trades came to in its manifest’s outcomeSummary, matched through related entities', async () => {
    t.market.set('1', 50_000, t.clock.now());
    t.market.set('1027', 2_000, t.clock.now());
    const { key } = await t.newKey(['read', 'trade:spot', 'trade:futures']);
    let n = 0;
    const post = async (path: string, body: object, runId: string | null = 'outcome-run') => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/agent/${path}`,
        headers: { ...bearer(key), ...(runId ? { 'x-service-run-id': runId } : {}) },
        payload: { idempotencyKey: `oc-${(n += 1)}`, ...body },
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json();
    };
    await post('spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 }); // a buy: no outcome
    const sell = await post('spot/order', { coinId: '1', side: 'sell', orderType: 'market', quantity: 0.05 });
    await post('spot/order', { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 10_000 }); // rests
    const opened = await post('futures/open', { coinId: '1027', side: 'long', leverage: 5, marginMusd: 100 });
    t.market.set('1027', 2_100, t.clock.now());
    await post('futures/close', { positionId: opened.position.id, fraction: 1 }, null); // closed outside the run: still its position's outcome
    await post('spot/order', { coinId: '1', side: 'sell', orderType: 'market', quantity: 0.05 }, 'other-run');
    const trades = (await get(key, '/api/agent/trades?limit=50')).json().trades as { venue: string; realizedPnlMusd: number | null; id: number }[];
    const spotPnl = trades.find((r) => r.id === sell.orderId)!.realizedPnlMusd!;
    const futuresPnl = trades.find((r) => r.venue === 'futures')!.realizedPnlMusd!;
    expect(spotPnl).not.toBe(0);
    expect(futuresPnl).toBeGreaterThan(0);
    const summary = (await get(key, '/api/agent/ledger/export?runId=outcome-run')).json().run.outcomeSummary;
    expect(summary).toMatchObject({
      schema: 'svc.agentRunOutcomeSummary.v1',
      mode: 'best_effort_related_entities',
      coverage: 'partial',
      relatedEntityCount: 4, // two fills, the resting order, the position
      matchedOutcomeCount: 2,
      unmatchedRelatedEntityCount: 2,
      byVenue: { spot: { matchedOutcomeCount: 1 }, futures: { matchedOutcomeCount: 1 }, pm: { realizedPnlMusd: 0, matchedOutcomeCount: 0 } },
    });
    expect(summary.byVenue.spot.realizedPnlMusd).toBeCloseTo(spotPnl, 6);
    expect(summary.byVenue.futures.realizedPnlMusd).toBeCloseTo(futuresPnl, 6);
    expect(summary.realizedPnlMusd).toBeCloseTo(spotPnl + futuresPnl, 6);
  });
});

describe('ledger fail-open', () => {
  it('keeps answering without the ledger headers when the ledger store fails', async () => {
    const failing = await createTestApp({
      ledgerStore: { insert: async () => Promise.reject(new Error('ledger store down')) },
    });
    try {
      const { key } = await failing.newKey();
      const first = await failing.app.inject({ url: '/api/agent/me', headers: bearer(key) });
      expect(first.statusCode).toBe(200);
      await failing.ctx.ledger.flush();
      const second = await failing.app.inject({ url: '/api/agent/me', headers: bearer(key) });
      expect(second.statusCode).toBe(200);
      expect(second.json().keyId).toBeTypeOf('number');
      expect(second.headers['x-service-ledger-event-id']).toBeUndefined();
      expect(second.headers['x-service-ledger-status']).toBeUndefined();
    } finally {
      await failing.close();
    }
  });

  it('writes pending rows when the app closes (graceful shutdown)', async () => {
    const rows: unknown[] = [];
    const app = await createTestApp({ ledgerStore: { insert: async (batch) => void rows.push(...batch) }, config: { ledgerFlushMs: 60_000 } });
    const { key } = await app.newKey();
    await app.app.inject({ url: '/api/agent/me', headers: bearer(key) });
    expect(rows).toHaveLength(0);
    await app.close();
    expect(rows).toHaveLength(1);
  });
});
