import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { trades } from '../support/arena.js';
import { ensureHouseAgents } from '../../src/services/house-agents.js';

describe('Arena rows and scorecards carry the agent’s public ledger counters', { timeout: 120_000 }, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    t.market.set('1', 50_000, t.clock.now());
  });
  afterAll(() => t?.close());

  const post = (key: string, url: string, body: object) => t.app.inject({ method: 'POST', url, headers: bearer(key), payload: body });
  const buy = { coinId: '1', side: 'buy', quantity: 0.001 };
  let n = 0;
  const order = (key: string) => post(key, '/api/agent/spot/order', { ...buy, orderType: 'market', idempotencyKey: `audit-${++n}` });
  const rowOf = async (keyId: number) => {
    await t.ctx.ledger.flush();
    const board = (await t.app.inject({ url: '/api/arena?pageSize=50' })).json();
    return board.rows.find((r: { handle: string }) => r.handle.startsWith(`a${keyId}-`));
  };

  it('auditStats on an Arena row are the key’s /performance auditStats; leakage_clean follows quote-before-trade', async () => {
    const careful = await t.newKey(undefined, { agentName: 'Careful', public: true });
    const hasty = await t.newKey(undefined, { agentName: 'Hasty', public: true });
    for (let i = 0; i < 2; i += 1) {
      expect((await post(careful.key, '/api/agent/spot/quote', buy)).statusCode).toBe(200);
      expect((await order(careful.key)).statusCode).toBe(200);
    }
    expect((await order(hasty.key)).statusCode).toBe(200);
    // five decided trades each, so Track A is not thin
    for (const keyId of [careful.keyId, hasty.keyId]) await trades(t.testDb.database.db, keyId, 'spot', [10, -5, 10, -5, 10], t.clock.now() - 60_000);

    const row = await rowOf(careful.keyId);
    expect(row.auditStats).toMatchObject({ quoteCount: 2, writeCount: 2, quoteBeforeTradeRate: 1, runTraceCoverage: 0 });
    const performance = (await t.app.inject({ url: '/api/agent/performance', headers: bearer(careful.key) })).json();
    expect({ ...row.auditStats, ledgerEventCount: 0 }).toEqual({ ...performance.auditStats, ledgerEventCount: 0 }); // /performance is itself one more row
    expect((await rowOf(hasty.keyId)).auditStats).toMatchObject({ quoteCount: 0, writeCount: 1, quoteBeforeTradeRate: 0 });

    const card = async (keyId: number, name: string) => (await t.app.inject({ url: `/api/arena/agents/a${keyId}-${name}/scorecard` })).json().scorecard.metrics.leakage_clean;
    expect(await card(careful.keyId, 'careful')).toBe(1);
    expect(await card(hasty.keyId, 'hasty')).toBe(0);
  });

  it('a futures close or SL/TP counts as quoted after a quote of its position\'s coin (it named no coin: never quoted)', async () => {
    const futures = await t.newKey(undefined, { agentName: 'Closer' });
    const run = { 'x-service-run-id': 'closer-run' };
    const call = (path: string, payload: object) =>
      t.app.inject({ method: 'POST', url: `/api/agent/futures/${path}`, headers: { ...bearer(futures.key), ...run }, payload });
    const quote = { coinId: '1', side: 'long', leverage: 2, marginMusd: 100 };
    expect((await call('quote', quote)).statusCode).toBe(200);
    const opened = await call('open', { ...quote, idempotencyKey: `closer-${++n}` });
    expect(opened.statusCode).toBe(201);
    const positionId = opened.json().position.id;
    expect((await call('sl-tp', { positionId, stopLossPrice: 40_000 })).statusCode).toBe(200);
    expect((await call('close', { positionId, fraction: 0.5, idempotencyKey: `closer-${++n}` })).statusCode).toBe(200);
    t.clock.advance(6 * 60_000); // the quote is older than 5 minutes now
    t.market.set('1', 50_000, t.clock.now());
    expect((await call('close', { positionId, idempotencyKey: `closer-${++n}` })).statusCode).toBe(200);
    const performance = (await t.app.inject({ url: '/api/agent/performance', headers: bearer(futures.key) })).json();
    expect(performance.auditStats).toMatchObject({ quoteCount: 1, writeCount: 4, quoteBeforeTradeRate: 0.75 });
    // the run manifest reads the same rule over the run's rows
    const exported = (await t.app.inject({ url: '/api/agent/ledger/export?runId=closer-run', headers: bearer(futures.key) })).json();
    expect(exported.run.summary).toMatchObject({ quoteCount: 1, writeCount: 4, quoteBeforeTradeRate: 0.75 });
  });

  it('demo rows have none (house agents keep no ledger)', async () => {
    const db = t.testDb.database.db;
    for (const house of await ensureHouseAgents(db)) await trades(db, house.keyId, 'spot', [1], t.clock.now() - 60_000);
    const board = (await t.app.inject({ url: '/api/arena?pageSize=50' })).json();
    expect(board.rows.filter((r: { source: string }) => r.source === 'demo').length).toBeGreaterThan(0);
    for (const r of board.rows) expect(r.auditStats === null, r.handle).toBe(r.source === 'demo');
  });

  // after the demo-row test: with these two agents qualified too, the house steps aside
  it('scorecard stop_coverage is the share of futures positions that carried a stop-loss; evidence_coverage the share of writes with run and decision ids', async () => {
    const traced = await t.newKey(undefined, { agentName: 'Traced', public: true });
    const bare = await t.newKey(undefined, { agentName: 'Bare', public: true });
    const ids = { 'x-service-run-id': 'run-7', 'x-service-decision-id': 'decision-1' };
    const write = (key: string, path: string, payload: object, headers: object = {}) =>
      t.app.inject({ method: 'POST', url: `/api/agent/${path}`, headers: { ...bearer(key), ...headers }, payload });
    const open = (key: string, coinId: string, extra: object = {}, headers: object = {}) =>
      write(key, 'futures/open', { coinId, side: 'long', leverage: 2, marginMusd: 100, idempotencyKey: `cover-${++n}`, ...extra }, headers);
    t.market.set('1027', 3_000, t.clock.now());
    t.market.set('1', 50_000, t.clock.now());
    expect((await open(traced.key, '1', { stopLossPrice: 40_000 }, ids)).statusCode).toBe(201); // a stop at open; both ids in headers
    const later = await open(traced.key, '1027', {}, { 'x-service-run-id': 'run-7' }); // no decision id: not evidence
    expect(later.statusCode).toBe(201);
    // a stop set after opening counts too; ids sent in the body's agentTrace count like the headers
    const slTp = await write(traced.key, 'futures/sl-tp', { positionId: later.json().position.id, stopLossPrice: 2_000, agentTrace: { runId: 'run-7', decisionId: 'decision-2' } });
    expect(slTp.statusCode).toBe(200);
    expect((await write(traced.key, 'spot/order', { ...buy, orderType: 'market', idempotencyKey: `cover-${++n}` }, ids)).statusCode).toBe(200);
    expect((await order(traced.key)).statusCode).toBe(200);
    expect((await open(bare.key, '1')).statusCode).toBe(201);
    expect((await order(bare.key)).statusCode).toBe(200);
    for (const keyId of [traced.keyId, bare.keyId]) await trades(t.testDb.database.db, keyId, 'spot', [10, -5, 10, -5, 10], t.clock.now() - 60_000);
    await t.ctx.ledger.flush();

    const metrics = async (keyId: number, name: string) => (await t.app.inject({ url: `/api/arena/agents/a${keyId}-${name}/scorecard` })).json().scorecard.metrics;
    expect(await metrics(traced.keyId, 'traced')).toMatchObject({ stop_coverage: 1, evidence_coverage: 0.6 });
    expect(await metrics(bare.keyId, 'bare')).toMatchObject({ stop_coverage: 0, evidence_coverage: 0 });
    const none = await t.newKey(undefined, { agentName: 'Spotonly', public: true });
    await trades(t.testDb.database.db, none.keyId, 'spot', [10, -5, 10, -5, 10], t.clock.now() - 60_000);
    expect(await metrics(none.keyId, 'spotonly')).toMatchObject({ stop_coverage: null, evidence_coverage: null });
  });
});
