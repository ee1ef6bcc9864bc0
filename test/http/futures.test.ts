import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooks } from '../../src/services/doctor.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { futuresMarginDiscrepancies } from '../../src/storage/futures-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { sql } from 'drizzle-orm';
import { AS_OF_GRACE_MS } from '../../src/domain/delta-polling.js';
import { createTestApp, bearer, type TestApp } from '../support/app.js';
import { keyedRouteSecurity } from '../support/security.js';

let t: TestApp;
let defaults: TestApp;
let seq = 0;
const ik = () => `ik-${(seq += 1)}`;

beforeAll(async () => {
  // Budgets raised so the tests measure futures behaviour, not rate limits.
  [t, defaults] = await Promise.all([createTestApp({ config: { agentRpm: 100_000, tradeWpm: 100_000 } }), createTestApp()]);
  for (const app of [t, defaults]) {
    app.market.set('1', 50_000, app.clock.now());
    app.market.set('1027', 2_000, app.clock.now());
    app.market.set('5426', 100, app.clock.now());
  }
}, 180_000); // building the apps (fresh databases, every migration) is slow on a busy machine
afterAll(async () => {
  await t.close();
  await defaults.close();
});

const post = (app: TestApp, key: string, path: string, payload: object) =>
  app.app.inject({ method: 'POST', url: `/api/agent/futures/${path}`, headers: bearer(key), payload });
const open = (key: string, payload: object) => post(t, key, 'open', { idempotencyKey: ik(), ...payload });
const close = (key: string, payload: object) => post(t, key, 'close', { idempotencyKey: ik(), ...payload });
const slTp = (key: string, payload: object) => post(t, key, 'sl-tp', payload);
const positions = (key: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/agent/positions/futures${query}`, headers: bearer(key) });

async function booksBalanced(app: TestApp = t): Promise<void> {
  expect((await checkBooks(app.ctx.database.db)).discrepancies).toEqual([]);
  expect(await futuresMarginDiscrepancies(app.ctx.database.db)).toEqual([]);
}

async function futuresTrades(keyId: number) {
  return queryRows<{ side: string; realized_pnl: string; detail: { exitReason: string; fraction: number } }>(
    t.ctx.database.db,
    sql`select side, realized_pnl, detail from closed_trades where key_id = ${keyId} and venue = 'futures' order by id`,
  );
}

describe('POST /api/agent/futures/quote', () => {
  it('prices margin × leverage at the mark with the liquidation price, fee and execution model', async () => {
    const { key } = await t.newKey(['read']);
    const res = await post(t, key, 'quote', { coinId: '1', side: 'long', leverage: 10, marginMusd: 1000 });
    expect(res.statusCode).toBe(200);
    const q = res.json();
    expect(q).toMatchObject({
      eligible: true,
      blockReasons: [],
      coin: { ucid: '1', symbol: 'BTC', name: 'Bitcoin' },
      side: 'long',
      leverage: 10,
      marginMusd: 1000,
      minMargin: 10,
      maxLeverage: 20,
      referenceMark: 50_000,
      entryPrice: 50_000,
      notionalMusd: 10_000,
      sizeCoin: 0.2,
      liquidationPrice: 45_250,
      maintenanceMarginRate: 0.005,
      fill: null,
      funding: null,
      perpetual: null,
      freshness: { status: 'fresh', ageSeconds: 0 },
      observation: { schema: 'svc.agentObservation.v1', endpoint: 'POST /api/agent/futures/quote', source: 'sim' },
    });
    expect(q.executionModel).toMatchObject({
      version: 'paper_execution_v1',
      feeBps: 5,
      spreadBps: 0,
      slippageBps: 0,
      fillModel: null,
      estimatedFeeMusd: 5,
      fundingMode: 'not_modeled',
    });
    expect(q.executionModel.assumptions.join(' ')).toMatch(/funding is not modeled/);
  });

  it('reports a stale mark as a block reason (200, not eligible)', async () => {
    const { key } = await t.newKey(['read']);
    t.market.set('5426', 100, t.clock.now() - 121_000);
    const stale = new (await import('../support/fixed-market.js')).FixedMarketFeed();
    stale.set('5426', 100, t.clock.now() - 121_000);
    const app = await createTestApp({ market: stale, testDb: t.testDb, clock: t.clock });
    try {
      const res = await post(app, key, 'quote', { coinId: '5426', side: 'short', leverage: 2, marginMusd: 50 });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ eligible: false, blockReasons: ['price_stale'], freshness: { status: 'stale' } });
    } finally {
      await app.app.close();
    }
  });

  it('answers 404 coin_not_found for an unknown coin and 400 naming the field for bad ranges', async () => {
    const { key } = await t.newKey(['read']);
    const unknown = await post(t, key, 'quote', { coinId: '999999', side: 'long', leverage: 2, marginMusd: 50 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('coin_not_found');
    const cases: [object, string][] = [
      [{ coinId: '1', side: 'long', leverage: 21, marginMusd: 50 }, 'body.leverage'],
      [{ coinId: '1', side: 'long', leverage: 0.5, marginMusd: 50 }, 'body.leverage'],
      [{ coinId: '1', side: 'long', leverage: 2, marginMusd: 9.99 }, 'body.marginMusd'],
      [{ coinId: '1', side: 'up', leverage: 2, marginMusd: 50 }, 'body.side'],
      [{ coinId: '1', side: 'long', leverage: 2 }, 'body.marginMusd'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(t, key, 'quote', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field });
    }
  });
});

describe('POST /api/agent/futures/open', () => {
  it('refuses the cash coin USDT (825) like spot does: 400 invalid_request naming body.coinId, nothing moves (issue 12 item 7)', async () => {
    const { key, keyId } = await t.newKey();
    t.market.set('825', 1, t.clock.now());
    const spot = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { coinId: '825', side: 'buy', orderType: 'market', quantity: 1, idempotencyKey: ik() } });
    for (const res of [await open(key, { coinId: '825', side: 'long', leverage: 2, marginMusd: 50 }), await post(t, key, 'quote', { coinId: '825', side: 'long', leverage: 2, marginMusd: 50 })]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: spot.json().error, field: 'body.coinId' });
    }
    expect(spot.statusCode).toBe(400);
    expect(await futuresTrades(keyId)).toEqual([]);
    expect((await positions(key)).json().positions).toEqual([]);
  });

  it('opens an isolated position: margin to frozenFutures, fee from available, journal balanced', async () => {
    const { key, keyId } = await t.newKey();
    const res = await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 1000, stopLossPrice: 48_000, takeProfitPrice: 55_000 });
    expect(res.statusCode).toBe(201);
    const p = res.json().position;
    expect(p).toMatchObject({
      status: 'open',
      coin: { ucid: '1', symbol: 'BTC' },
      side: 'long',
      leverage: 10,
      entryPrice: 50_000,
      marginMusd: 1000,
      notionalMusd: 10_000,
      sizeCoin: 0.2,
      maintenanceMarginRate: 0.005,
      liquidationPrice: 45_250,
      stopLossPrice: 48_000,
      takeProfitPrice: 55_000,
      exitPrice: null,
      exitReason: null,
      realizedPnlMusd: null,
      fillModel: null,
      closedAt: null,
      freshnessAtEntry: { status: 'fresh' },
    });
    expect(res.json().idempotentReplay).toBeUndefined();
    const w = (await findWallet(t.ctx.database.db, keyId))!;
    expect(w.available.toNumber()).toBe(50_000 - 1000 - 5);
    expect(w.frozenFutures.toNumber()).toBe(1000);
    await booksBalanced();
  });

  it('takes the margin at the 8 decimals balances are kept at (cut toward zero), in quote and open alike', async () => {
    const { key, keyId } = await t.newKey();
    t.market.set('1', 50_000, t.clock.now());
    const quote = (await post(t, key, 'quote', { coinId: '1', side: 'long', leverage: 2, marginMusd: 10.123456789 })).json();
    expect(quote.marginMusd).toBe(10.12345678);
    const res = await open(key, { coinId: '1', side: 'long', leverage: 2, marginMusd: 10.123456789 });
    expect(res.statusCode).toBe(201);
    expect(res.json().position.marginMusd).toBe(10.12345678);
    const w = (await findWallet(t.ctx.database.db, keyId))!;
    expect(w.frozenFutures.toString()).toBe('10.12345678'); // frozen exactly as shown
    await booksBalanced();
  });

  it('adds a same-side open at the same leverage with a size-weighted entry (200)', async () => {
    const { key, keyId } = await t.newKey();
    expect((await open(key, { coinId: '1027', side: 'short', leverage: 5, marginMusd: 200 })).statusCode).toBe(201);
    t.market.set('1027', 2_200, t.clock.now());
    const quoted = (await post(t, key, 'quote', { coinId: '1027', side: 'short', leverage: 5, marginMusd: 100 })).json();
    const add = await open(key, { coinId: '1027', side: 'short', leverage: 5, marginMusd: 100 });
    t.market.set('1027', 2_000, t.clock.now());
    expect(add.statusCode).toBe(200);
    const p = add.json().position;
    // sizes 0.5 + (500/2200) coin; entry = notional / size
    const size = 0.5 + 500 / 2200;
    expect(p.sizeCoin).toBeCloseTo(size, 8);
    expect(p.entryPrice).toBeCloseTo(1500 / size, 6);
    expect(p.marginMusd).toBe(300);
    expect(p.notionalMusd).toBe(1500);
    expect(p.liquidationPrice).toBeCloseTo((1500 / size) * (1 + 1 / 5 - 0.005), 6);
    expect(quoted.liquidationPrice).toBe(p.liquidationPrice); // the quote showed the merged position's
    const w = (await findWallet(t.ctx.database.db, keyId))!;
    expect(w.frozenFutures.toNumber()).toBe(300);
    expect(w.available.toNumber()).toBe(50_000 - 300 - 0.5 - 0.25);
    await booksBalanced();
  });

  it('writes the trade-log detail of a close with the prices and amounts the position shows', async () => {
    const { key, keyId } = await t.newKey();
    t.market.set('1027', 2_000, t.clock.now());
    expect((await open(key, { coinId: '1027', side: 'long', leverage: 3, marginMusd: 100 })).statusCode).toBe(201);
    t.market.set('1027', 2_213.37, t.clock.now());
    const added = (await open(key, { coinId: '1027', side: 'long', leverage: 3, marginMusd: 77.7 })).json().position;
    t.market.set('1027', 2_100.987654321, t.clock.now());
    const closed = (await close(key, { positionId: added.id })).json().position;
    t.market.set('1027', 2_000, t.clock.now());
    const [{ detail }] = (await futuresTrades(keyId)) as unknown as [{ detail: Record<string, number> }];
    expect([detail.entryPrice, detail.exitPrice, detail.sizeCoin]).toEqual([added.entryPrice, closed.exitPrice, added.sizeCoin]);
    for (const k of ['marginReleasedMusd', 'pricePnlMusd', 'openFeeMusd', 'closeFeeMusd']) expect(detail[k], k).toBe(Math.round(detail[k]! * 1e8) / 1e8);
    await booksBalanced();
  });

  it('refuses an opposite side, a leverage mismatch and SL/TP on an add (422, nothing moves)', async () => {
    const { key, keyId } = await t.newKey();
    await open(key, { coinId: '1', side: 'long', leverage: 3, marginMusd: 100 });
    const before = (await findWallet(t.ctx.database.db, keyId))!;
    const opposite = await open(key, { coinId: '1', side: 'short', leverage: 3, marginMusd: 100 });
    expect(opposite.statusCode).toBe(422);
    expect(opposite.json()).toMatchObject({ error: 'futures_entry_blocked', blockReasons: ['opposite_side_open'] });
    const mismatch = await open(key, { coinId: '1', side: 'long', leverage: 4, marginMusd: 100, takeProfitPrice: 60_000 });
    expect(mismatch.json().blockReasons).toEqual(['leverage_mismatch', 'sl_tp_not_allowed_on_add']);
    // an add at a mark through the liquidation price (the risk job has not run yet)
    t.market.set('1', 30_000, t.clock.now());
    try {
      const rescue = await open(key, { coinId: '1', side: 'long', leverage: 3, marginMusd: 100 });
      expect(rescue.json().blockReasons).toEqual(['position_at_liquidation']);
      const quote = await post(t, key, 'quote', { coinId: '1', side: 'long', leverage: 3, marginMusd: 100 });
      expect(quote.json()).toMatchObject({ eligible: false, blockReasons: ['position_at_liquidation'] });
    } finally {
      t.market.set('1', 50_000, t.clock.now());
    }
    const after = (await findWallet(t.ctx.database.db, keyId))!;
    expect(after.available.eq(before.available)).toBe(true);
    expect(after.frozenFutures.eq(before.frozenFutures)).toBe(true);
  });

  it('refuses an add that would move the liquidation price past the kept stop-loss; the quote says so first', async () => {
    const { key, keyId } = await t.newKey();
    // long 10× at 50,000: liquidation 45,250, stop-loss 46,000 between it and the mark
    expect((await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 100, stopLossPrice: 46_000 })).statusCode).toBe(201);
    t.market.set('1', 55_000, t.clock.now());
    try {
      // adding 1,000 at 55,000 lifts the entry to ~54,505 and the liquidation to ~49,327, above the stop-loss
      const big = { coinId: '1', side: 'long', leverage: 10, marginMusd: 1_000 };
      const quote = await post(t, key, 'quote', big);
      expect(quote.json()).toMatchObject({ eligible: false, blockReasons: ['stop_loss_not_above_liquidation'] });
      const before = (await findWallet(t.ctx.database.db, keyId))!;
      const refused = await open(key, big);
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ error: 'futures_entry_blocked', blockReasons: ['stop_loss_not_above_liquidation'] });
      const after = (await findWallet(t.ctx.database.db, keyId))!;
      expect(after.available.eq(before.available)).toBe(true);
      expect(after.frozenFutures.eq(before.frozenFutures)).toBe(true);
      // a small add moves the liquidation price only to ~45,627: the stop-loss still guards it
      const small = { coinId: '1', side: 'long', leverage: 10, marginMusd: 10 };
      expect((await post(t, key, 'quote', small)).json()).toMatchObject({ eligible: true, blockReasons: [] });
      const added = await open(key, small);
      expect(added.statusCode).toBe(200);
      expect(added.json().position.stopLossPrice).toBe(46_000);
      expect(added.json().position.liquidationPrice).toBeLessThan(46_000);
    } finally {
      t.market.set('1', 50_000, t.clock.now());
    }
    await booksBalanced();
  });

  it('refuses dead triggers, too little cash and a stale or missing mark with stable codes', async () => {
    const { key, keyId } = await t.newKey();
    const dead = await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 100, stopLossPrice: 45_000, takeProfitPrice: 49_000 });
    expect(dead.statusCode).toBe(422);
    expect(dead.json().blockReasons).toEqual(['stop_loss_not_above_liquidation', 'take_profit_not_above_mark']);
    const deadShort = await open(key, { coinId: '1', side: 'short', leverage: 10, marginMusd: 100, stopLossPrice: 49_000 });
    expect(deadShort.json().blockReasons).toEqual(['stop_loss_not_above_mark']);
    const broke = await open(key, { coinId: '1', side: 'long', leverage: 2, marginMusd: 49_990 });
    expect(broke.json()).toMatchObject({ error: 'futures_entry_blocked', blockReasons: ['insufficient_usdt_balance'] });
    t.clock.advance(121_000);
    try {
      const stale = await open(key, { coinId: '1', side: 'long', leverage: 2, marginMusd: 50 });
      expect(stale.json()).toMatchObject({ error: 'futures_entry_blocked', blockReasons: ['price_stale'] });
    } finally {
      t.clock.advance(-121_000);
    }
    const unknown = await open(key, { coinId: '999999', side: 'long', leverage: 2, marginMusd: 50 });
    expect(unknown.statusCode).toBe(404);
    const wallet = await findWallet(t.ctx.database.db, keyId);
    expect(wallet === null || wallet.frozenFutures.isZero()).toBe(true);
  });

  it('executes 50 concurrent duplicates once and replays the rest (201 once, then 200 + flag)', async () => {
    const { key, keyId } = await t.newKey();
    const payload = { coinId: '5426', side: 'long', leverage: 4, marginMusd: 250, idempotencyKey: 'dup-open' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(t, key, 'open', payload)));
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    const replays = responses.filter((r) => r.statusCode === 200);
    expect(replays).toHaveLength(49);
    const id = responses[0]!.json().position.id;
    for (const r of replays) expect(r.json()).toMatchObject({ idempotentReplay: true, position: { id, marginMusd: 250 } });
    const w = (await findWallet(t.ctx.database.db, keyId))!;
    expect(w.frozenFutures.toNumber()).toBe(250);
    expect(w.available.toNumber()).toBe(50_000 - 250 - 0.5);
    const conflict = await post(t, key, 'open', { ...payload, marginMusd: 251 });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toBe('idempotency_key_conflict');
    await booksBalanced();
  });

  it('answers 403 feature_disabled when FUTURES_OPEN_ENABLED is off, while close stays allowed', async () => {
    const { key } = await t.newKey();
    const opened = (await open(key, { coinId: '1', side: 'long', leverage: 2, marginMusd: 50 })).json().position;
    const off = await createTestApp({ testDb: t.testDb, clock: t.clock, market: t.market, config: { futuresOpenEnabled: false } });
    try {
      const res = await post(off, key, 'open', { coinId: '1', side: 'long', leverage: 2, marginMusd: 50, idempotencyKey: ik() });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('feature_disabled');
      expect(res.json().message).toMatch(/not enabled/);
      const quote = { coinId: '1', side: 'long', leverage: 2, marginMusd: 50 };
      expect((await post(off, key, 'quote', quote)).json()).toMatchObject({ eligible: false, blockReasons: ['feature_disabled'] });
      expect((await post(t, key, 'quote', quote)).json()).toMatchObject({ eligible: true, blockReasons: [] });
      const closed = await post(off, key, 'close', { positionId: opened.id, idempotencyKey: ik() });
      expect(closed.statusCode).toBe(200);
      expect(closed.json().position.status).toBe('closed');
    } finally {
      await off.app.close();
    }
  });
});

describe('POST /api/agent/futures/close', () => {
  it('closes a fraction, then the rest: PnL net of fees to the trade log, margin + PnL back to available', async () => {
    const { key, keyId } = await t.newKey();
    const p = (await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 1000 })).json().position;
    t.market.set('1', 51_000, t.clock.now());
    try {
      const half = await close(key, { positionId: p.id, fraction: 0.5 });
      expect(half.statusCode).toBe(200);
      const h = half.json().position;
      // price PnL 0.1 × 1000 = 100; close fee 0.1 × 51000 × 5 bps = 2.55; open fee share 2.5
      expect(h).toMatchObject({ status: 'open', marginMusd: 500, sizeCoin: 0.1, realizedPnlMusd: 94.95, liquidationPrice: 45_250, exitPrice: null });
      let w = (await findWallet(t.ctx.database.db, keyId))!;
      expect(w.frozenFutures.toNumber()).toBe(500);
      expect(w.available.toNumber()).toBeCloseTo(50_000 - 1005 + 500 + 100 - 2.55, 8);
      await booksBalanced();

      // a fraction sent as null is one left out (the whole rest), and the retry without it replays
      const rest = await close(key, { positionId: p.id, fraction: null, idempotencyKey: 'close-rest' });
      expect(rest.json().position).toMatchObject({ status: 'closed', exitReason: 'user_close', exitPrice: 51_000, realizedPnlMusd: 189.9 });
      expect((await close(key, { positionId: p.id, idempotencyKey: 'close-rest' })).json()).toMatchObject({ idempotentReplay: true, position: { status: 'closed' } });
      expect(rest.json().position.closedAt).toBe(new Date(t.clock.now()).toISOString());
      w = (await findWallet(t.ctx.database.db, keyId))!;
      expect(w.frozenFutures.toNumber()).toBe(0);
      expect(w.available.toNumber()).toBeCloseTo(50_000 + 189.9, 8);
      const trades = await futuresTrades(keyId);
      expect(trades.map((tr) => [tr.side, Number(tr.realized_pnl), tr.detail.exitReason, tr.detail.fraction])).toEqual([
        ['long', 94.95, 'user_close', 0.5],
        ['long', 94.95, 'user_close', 1],
      ]);
      await booksBalanced();

      const again = await close(key, { positionId: p.id });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toBe('position_not_open');
    } finally {
      t.market.set('1', 50_000, t.clock.now());
    }
  });

  it('settles as a liquidation whatever the fraction when the mark is through the liquidation price', async () => {
    const { key, keyId } = await t.newKey();
    const p = (await open(key, { coinId: '5426', side: 'short', leverage: 20, marginMusd: 100 })).json().position;
    // short 20x: liquidation at 100 × (1 + 0.05 − 0.005) = 104.5
    t.market.set('5426', 104.6, t.clock.now());
    try {
      const res = await close(key, { positionId: p.id, fraction: 0.25 });
      expect(res.statusCode).toBe(200);
      expect(res.json().position).toMatchObject({ status: 'liquidated', exitReason: 'liquidation', realizedPnlMusd: -101 });
      // the trade log gives the mark move (20 coins short from 100 to 104.6) beside the margin lost (it said −100 for both)
      const [{ detail }] = (await futuresTrades(keyId)) as unknown as [{ detail: Record<string, number> }];
      expect(detail).toMatchObject({ exitReason: 'liquidation', fraction: 1, sizeCoin: 20, pricePnlMusd: -92, marginForfeitedMusd: 100, marginReleasedMusd: 0, openFeeMusd: 1, closeFeeMusd: 0 });
      const w = (await findWallet(t.ctx.database.db, keyId))!;
      expect(w.frozenFutures.toNumber()).toBe(0);
      expect(w.available.toNumber()).toBe(50_000 - 101);
      await booksBalanced();
    } finally {
      t.market.set('5426', 100, t.clock.now());
    }
  });

  it('replays 50 concurrent duplicate closes once', async () => {
    const { key, keyId } = await t.newKey();
    const p = (await open(key, { coinId: '1027', side: 'long', leverage: 2, marginMusd: 400 })).json().position;
    const payload = { positionId: p.id, fraction: 0.5, idempotencyKey: 'dup-close' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(t, key, 'close', payload)));
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect(responses.filter((r) => r.json().idempotentReplay === true)).toHaveLength(49);
    expect((await findWallet(t.ctx.database.db, keyId))!.frozenFutures.toNumber()).toBe(200);
    expect(await futuresTrades(keyId)).toHaveLength(1);
    // the default fraction is part of the intent: a retry spelling out fraction 1 replays a close sent without one
    const q = (await open(key, { coinId: '1', side: 'long', leverage: 2, marginMusd: 100 })).json().position;
    expect((await post(t, key, 'close', { positionId: q.id, idempotencyKey: 'whole-close' })).json().idempotentReplay).toBeUndefined();
    const spelled = await post(t, key, 'close', { positionId: q.id, fraction: 1, idempotencyKey: 'whole-close' });
    expect(spelled.statusCode).toBe(200);
    expect(spelled.json().idempotentReplay).toBe(true);
    expect(await futuresTrades(keyId)).toHaveLength(2);
    await booksBalanced();
  });

  it("answers 404 for an unknown or another key's position, 422 no_mark without a fresh mark, 400 for a bad fraction", async () => {
    const a = await t.newKey();
    const b = await t.newKey();
    const p = (await open(a.key, { coinId: '1', side: 'short', leverage: 2, marginMusd: 50 })).json().position;
    expect((await close(b.key, { positionId: p.id })).statusCode).toBe(404);
    expect((await close(a.key, { positionId: 987654 })).json().error).toBe('position_not_found');
    for (const fraction of [0, 1.5, -0.1]) {
      const bad = await close(a.key, { positionId: p.id, fraction });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().field).toBe('body.fraction');
    }
    // 100 mUSD of notional: closing a millionth, or all but a hundred-thousandth, is under 0.01 mUSD.
    for (const fraction of [1e-6, 1e-30, 0.99999]) {
      const dust = await close(a.key, { positionId: p.id, fraction });
      expect(dust.statusCode, String(fraction)).toBe(400);
      expect(dust.json()).toMatchObject({ error: 'invalid_request', field: 'body.fraction', blockReasons: ['below_min_notional'] });
    }
    expect(await futuresTrades(a.keyId)).toHaveLength(0);
    const unchanged = (await t.app.inject({ url: '/api/agent/positions/futures', headers: bearer(a.key) })).json();
    expect(JSON.stringify(unchanged)).toContain(`"sizeCoin":${p.sizeCoin}`);
    t.clock.advance(121_000);
    try {
      const res = await close(a.key, { positionId: p.id });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toBe('no_mark');
    } finally {
      t.clock.advance(-121_000);
    }
  });
});

describe('POST /api/agent/futures/sl-tp', () => {
  it('sets, keeps and clears triggers, validated side-aware against the mark and liquidation', async () => {
    const { key } = await t.newKey();
    const p = (await open(key, { coinId: '1', side: 'short', leverage: 10, marginMusd: 100 })).json().position;
    // short 10x from 50,000: liquidation 54,750
    const set = await slTp(key, { positionId: p.id, stopLossPrice: 52_000, takeProfitPrice: 45_000 });
    expect(set.statusCode).toBe(200);
    expect(set.json().position).toMatchObject({ stopLossPrice: 52_000, takeProfitPrice: 45_000 });
    const keep = await slTp(key, { positionId: p.id, takeProfitPrice: 46_000 });
    expect(keep.json().position).toMatchObject({ stopLossPrice: 52_000, takeProfitPrice: 46_000 });
    const cleared = await slTp(key, { positionId: p.id, stopLossPrice: null });
    expect(cleared.json().position).toMatchObject({ stopLossPrice: null, takeProfitPrice: 46_000 });
    const noop = await slTp(key, { positionId: p.id });
    expect(noop.statusCode).toBe(200);
    expect(noop.json().position.takeProfitPrice).toBe(46_000);

    const invalid = await slTp(key, { positionId: p.id, stopLossPrice: 55_000, takeProfitPrice: 51_000 });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({
      error: 'sl_tp_invalid',
      blockReasons: ['stop_loss_not_below_liquidation', 'take_profit_not_below_mark'],
    });
    const below = await slTp(key, { positionId: p.id, stopLossPrice: 49_000 });
    expect(below.json().blockReasons).toEqual(['stop_loss_not_above_mark']);
  });

  it('answers 404 for a foreign position, 409 for a closed one, 422 no_mark on a stale price, 400 for a non-positive price', async () => {
    const a = await t.newKey();
    const b = await t.newKey();
    const p = (await open(a.key, { coinId: '1027', side: 'long', leverage: 2, marginMusd: 50 })).json().position;
    expect((await slTp(b.key, { positionId: p.id, stopLossPrice: 1500 })).json().error).toBe('position_not_found');
    expect((await slTp(a.key, { positionId: p.id, stopLossPrice: 0 })).statusCode).toBe(400);
    t.clock.advance(121_000);
    try {
      const res = await slTp(a.key, { positionId: p.id, stopLossPrice: 1500 });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toBe('no_mark');
    } finally {
      t.clock.advance(-121_000);
    }
    await close(a.key, { positionId: p.id });
    const closed = await slTp(a.key, { positionId: p.id, stopLossPrice: 1500 });
    expect(closed.statusCode).toBe(409);
    expect(closed.json().error).toBe('position_not_open');
  });
});

describe('GET /api/agent/positions/futures', () => {
  it('lists open rows with a live mark and historical rows without one; updatedSince gives only moved rows', async () => {
    const { key } = await t.newKey();
    const first = (await open(key, { coinId: '1', side: 'long', leverage: 5, marginMusd: 100 })).json().position;
    t.clock.advance(1000);
    const second = (await open(key, { coinId: '1027', side: 'short', leverage: 2, marginMusd: 100 })).json().position;
    t.clock.advance(1000);
    await close(key, { positionId: first.id });
    t.clock.advance(AS_OF_GRACE_MS + 1000);
    t.market.set('1027', 1_900, t.clock.now());
    try {
      const all = await positions(key);
      expect(all.statusCode).toBe(200);
      const body = all.json();
      expect(body.updatedSince).toBeNull();
      // stepped back: a write stamped just before this read but committed after it is not missed
      expect(body.asOf).toBe(new Date(t.clock.now() - AS_OF_GRACE_MS).toISOString());
      expect(body.positions.map((p: { id: number }) => p.id)).toEqual([second.id, first.id]);
      // short 0.1 ETH from 2000 at 1900: +10; liquidation 2000 × 1.495 = 2990
      expect(body.positions[0]).toMatchObject({ status: 'open', markPrice: 1900, unrealizedPnlMusd: 10, atLiquidation: false });
      expect(body.positions[0].liquidationDistancePct).toBeCloseTo((100 * (2990 - 1900)) / 1900, 4);
      expect(body.positions[1]).toMatchObject({ status: 'closed', markPrice: null, unrealizedPnlMusd: null });

      const asOf = body.asOf;
      t.clock.advance(1000);
      expect((await positions(key, `?updatedSince=${encodeURIComponent(asOf)}`)).json().positions).toEqual([]);
      await slTp(key, { positionId: second.id, takeProfitPrice: 1_500 });
      const delta = (await positions(key, `?updatedSince=${encodeURIComponent(asOf)}`)).json();
      expect(delta.updatedSince).toBe(asOf);
      expect(delta.positions.map((p: { id: number }) => p.id)).toEqual([second.id]);
      expect((await positions(key, '?updatedSince=yesterday')).statusCode).toBe(400);
      // an open stamped a second before the poll's read (it waited for its book) still shows in the next delta
      const cursor = (await positions(key)).json().asOf;
      t.clock.advance(-1000);
      const late = (await open(key, { coinId: '5426', side: 'long', leverage: 2, marginMusd: 50 })).json().position;
      t.clock.advance(1000);
      expect((await positions(key, `?updatedSince=${encodeURIComponent(cursor)}`)).json().positions.map((p: { id: number }) => p.id)).toContain(late.id);
    } finally {
      t.market.set('1027', 2_000, t.clock.now());
    }
  });
});

describe('ledger export futures[] and futuresEvents[]', () => {
  it('lists the key’s positions and every move, newest first, with idempotency keys', async () => {
    const { key } = await t.newKey();
    const p = (await post(t, key, 'open', { coinId: '1', side: 'long', leverage: 4, marginMusd: 100, idempotencyKey: 'exp-open' })).json().position;
    await open(key, { coinId: '1', side: 'long', leverage: 4, marginMusd: 50 });
    await slTp(key, { positionId: p.id, stopLossPrice: 45_000 });
    await close(key, { positionId: p.id, fraction: 0.5 });
    await post(t, key, 'close', { positionId: p.id, idempotencyKey: 'exp-close' });
    const res = await t.app.inject({ method: 'GET', url: '/api/agent/ledger/export', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.futures).toHaveLength(1);
    expect(body.futures[0]).toMatchObject({
      id: p.id,
      coinSymbol: 'BTC',
      side: 'long',
      leverage: 4,
      entryPrice: 50_000,
      status: 'closed',
      exitReason: 'user_close',
      exitPrice: 50_000,
      stopLossPrice: 45_000,
      entryFreshnessStatus: 'fresh',
      fillModel: null,
      idempotencyKey: 'exp-open',
    });
    // fees only: 5 bps on 400 + 200 opened and on 600 closed
    expect(body.futures[0].realizedPnlMusd).toBeCloseTo(-0.6, 8);
    expect(body.futuresEvents.map((e: { type: string }) => e.type)).toEqual(['close', 'reduce', 'sl_tp_set', 'add', 'open']);
    expect(body.futuresEvents[0]).toMatchObject({ positionId: p.id, idempotencyKey: 'exp-close', fillPrice: 50_000, executionVersion: 'paper_execution_v1' });
    // Reference (part C 7): realizedPnlMusd is a plain number — 0 on events that realize nothing.
    expect(body.futuresEvents[4]).toMatchObject({ sizeDeltaCoin: 0.008, marginDeltaMusd: 100, feeMusd: 0.2, slippageMusd: 0, realizedPnlMusd: 0 });
    expect(body.futuresEvents.every((e: { realizedPnlMusd: unknown }) => typeof e.realizedPnlMusd === 'number')).toBe(true);
    const sizes = body.futuresEvents.map((e: { sizeDeltaCoin: number }) => e.sizeDeltaCoin);
    expect(sizes.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(0, 10);
  });

  it('exports prices as positions/futures shows them (12 significant digits), not raw doubles', async () => {
    const { key } = await t.newKey();
    t.market.set('5426', 101.234567891234567, t.clock.now());
    try {
      await open(key, { coinId: '5426', side: 'short', leverage: 7, marginMusd: 33.3 });
      const shown = (await t.app.inject({ url: '/api/agent/positions/futures', headers: bearer(key) })).json().positions[0];
      const exported = (await t.app.inject({ url: '/api/agent/ledger/export', headers: bearer(key) })).json();
      expect(String(shown.entryPrice).replace(/\D/g, '').length).toBeLessThanOrEqual(12);
      expect(exported.futures[0]).toMatchObject({ entryPrice: shown.entryPrice, liquidationPrice: shown.liquidationPrice });
      expect(exported.futuresEvents[0].fillPrice).toBe(shown.entryPrice);
    } finally {
      t.market.set('5426', 100, t.clock.now());
    }
  });

  it('a filtered export carries only the positions its ledger rows touched', async () => {
    const { key } = await t.newKey();
    const inRun = (runId: string, path: string, payload: object) =>
      t.app.inject({ method: 'POST', url: `/api/agent/futures/${path}`, headers: { ...bearer(key), 'x-service-run-id': runId }, payload: { idempotencyKey: ik(), ...payload } });
    const a = (await inRun('run-a', 'open', { coinId: '1', side: 'long', leverage: 2, marginMusd: 50 })).json().position;
    const b = (await inRun('run-b', 'open', { coinId: '1027', side: 'short', leverage: 3, marginMusd: 40 })).json().position;
    await inRun('run-b', 'close', { positionId: b.id, fraction: 0.5 });
    const exportOf = async (query: string) => (await t.app.inject({ method: 'GET', url: `/api/agent/ledger/export${query}`, headers: bearer(key) })).json();
    const runB = await exportOf('?runId=run-b');
    expect(runB.run.summary.runId).toBe('run-b');
    expect(runB.futures.map((p: { id: number }) => p.id)).toEqual([b.id]);
    expect(runB.futuresEvents.map((e: { positionId: number; type: string }) => [e.positionId, e.type])).toEqual([[b.id, 'reduce'], [b.id, 'open']]);
    expect((await exportOf('?runId=run-a')).futures.map((p: { id: number }) => p.id)).toEqual([a.id]);
    // A filter whose rows touch no position exports none; no filter exports the key's newest.
    expect((await exportOf('?venue=spot')).futures).toEqual([]);
    expect((await exportOf('?runId=no-such-run')).futuresEvents).toEqual([]);
    expect((await exportOf('')).futures.map((p: { id: number }) => p.id)).toEqual([b.id, a.id]);
  });
});

// The shared security suite on every futures route.
const foreignPosition = async (app: TestApp, path: string) => {
  const other = await app.newKey();
  const res = await post(app, other.key, 'open', { coinId: '1', side: 'long', leverage: 2, marginMusd: 20, idempotencyKey: ik() });
  return { method: 'POST' as const, url: `/api/agent/futures/${path}`, payload: { positionId: res.json().position.id, idempotencyKey: ik(), stopLossPrice: 1 } };
};
keyedRouteSecurity(() => defaults, {
  method: 'POST',
  url: '/api/agent/futures/quote',
  scope: 'read',
  payload: { coinId: '1', side: 'long', leverage: 2, marginMusd: 20 },
});
keyedRouteSecurity(() => defaults, {
  method: 'POST',
  url: '/api/agent/futures/open',
  scope: 'trade:futures',
  tradeWrite: true,
  payload: () => ({ coinId: '1', side: 'long', leverage: 2, marginMusd: 10, idempotencyKey: ik() }),
});
keyedRouteSecurity(() => defaults, {
  method: 'POST',
  url: '/api/agent/futures/sl-tp',
  scope: 'trade:futures',
  payload: { positionId: 1 },
  foreignResource: async (app) => {
    const target = await foreignPosition(app, 'sl-tp');
    return { ...target, payload: { positionId: target.payload.positionId } };
  },
});
keyedRouteSecurity(() => defaults, {
  method: 'POST',
  url: '/api/agent/futures/close',
  scope: 'trade:futures',
  tradeWrite: true,
  payload: () => ({ positionId: 1, idempotencyKey: ik() }),
  foreignResource: async (app) => {
    const target = await foreignPosition(app, 'close');
    return { ...target, payload: { positionId: target.payload.positionId, idempotencyKey: ik() } };
  },
});
keyedRouteSecurity(() => defaults, { method: 'GET', url: '/api/agent/positions/futures', scope: 'read' });
