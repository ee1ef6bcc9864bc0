import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooks } from '../../src/services/doctor.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { getHolding } from '../../src/storage/holdings-repo.js';
import { matchRestingOrders } from '../../src/workers/spot-matching.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { DEFAULT_TEST_COINS, FixedMarketFeed } from '../support/fixed-market.js';
import { keyedRouteSecurity } from '../support/security.js';

let t: TestApp;
let defaults: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { agentRpm: 100_000, tradeWpm: 100_000 } });
  defaults = await createTestApp();
  for (const app of [t, defaults]) app.market.set('1', 50_000, app.clock.now());
});
afterAll(async () => {
  await t.close();
  await defaults.close();
});

let seq = 0;
const nextKey = () => `k-${(seq += 1)}`;
const post = (key: string, url: string, payload?: object) => t.app.inject({ method: 'POST', url, headers: bearer(key), payload });
const order = (key: string, body: object) => post(key, '/api/agent/spot/order', { idempotencyKey: nextKey(), ...body });
const quote = (key: string, body: object) => post(key, '/api/agent/spot/quote', body);
const cancel = (key: string, id: number | string) => post(key, `/api/agent/spot/order/${id}/cancel`);
const get = (key: string, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(key) });
const wallet = async (keyId: number) => (await findWallet(t.ctx.database.db, keyId))!;
const holding = async (keyId: number, coinId = '1') => getHolding(t.ctx.database.db, (await wallet(keyId)).id, coinId);
/** Moves time forward and records a BTC tick there (the market "trades" at that price). */
const tick = (price: number, coinId = '1') => {
  t.clock.advance(10_000);
  t.market.set(coinId, price, t.clock.now());
};
const match = () => matchRestingOrders(t.ctx.database, t.market, t.clock.now());
const doctorOk = async () => expect(await checkBooks(t.ctx.database.db)).toMatchObject({ ok: true });

describe('POST /api/agent/spot/quote', () => {
  it('prices a buy at mid + half spread + slippage with the fee, and shows affordability', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const res = await quote(key, { coinId: '1', side: 'buy', quantity: 0.1 });
    expect(res.statusCode).toBe(200);
    const q = res.json();
    // rank 1 → 2 bps spread (half = 1) + 5,000 notional → 0.5 bps slippage = 1.5 bps above mid
    expect(q).toMatchObject({
      eligible: true,
      blockReasons: [],
      coin: { ucid: '1', symbol: 'BTC', name: 'Bitcoin' },
      side: 'buy',
      quantity: 0.1,
      orderType: 'market',
      executionPrice: 50_007.5,
      estimatedCostMusd: 5000.75,
      estimatedFeeMusd: 5.00075,
      available: { usdtAvailableMusd: 50_000, coinAvailable: 0 },
      freshness: { status: 'fresh', ageSeconds: 0 },
      priceTiming: { coverage: 'recorded', basis: 'venue_snapshot_time' },
    });
    expect(q.executionModel).toMatchObject({ version: 'paper_execution_v1', feeBps: 10, spreadBps: 2, slippageBps: 0.5, fundingMode: 'not_modeled' });
    expect(q.observation).toMatchObject({ schema: 'svc.agentObservation.v1', endpoint: 'POST /api/agent/spot/quote', source: 'sim' });
  });

  it('reports refusals as values: no coins to sell, too expensive, no price', async () => {
    const { key } = await t.newKey();
    expect((await quote(key, { coinId: '1', side: 'sell', quantity: 1 })).json()).toMatchObject({
      eligible: false,
      blockReasons: ['insufficient_coin_balance'],
    });
    expect((await quote(key, { coinId: '1', side: 'buy', quantity: 2 })).json()).toMatchObject({
      eligible: false,
      blockReasons: ['insufficient_usdt_balance'],
    });
    expect((await quote(key, { coinId: '1', side: 'buy', quantity: 1e-8 })).json()).toMatchObject({ eligible: false, blockReasons: ['below_min_notional'] });
    const eth = (await quote(key, { coinId: '1027', side: 'buy', quantity: 1 })).json();
    expect(eth).toMatchObject({ eligible: false, blockReasons: ['price_unavailable'], executionPrice: null, freshness: { status: 'unknown' } });
  });

  it('sends prices of a coin quoted under a billionth of a mUSD with their significant digits, not as 0', async () => {
    const babyDoge = { coinId: '10407', slug: 'baby-doge-coin', symbol: 'BABYDOGE', name: 'Baby Doge Coin', rank: 250, categories: ['Memes'] };
    const app = await createTestApp({ market: new FixedMarketFeed([...DEFAULT_TEST_COINS, babyDoge]) });
    try {
      app.market.set('10407', 1.05334948789e-9, app.clock.now());
      const { key } = await app.newKey();
      const call = (method: 'GET' | 'POST', url: string, payload?: object) => app.app.inject({ method, url, headers: bearer(key), payload });
      const q = (await call('POST', '/api/agent/spot/quote', { coinId: '10407', side: 'buy', quantity: 1e9 })).json();
      expect(q.eligible).toBe(true);
      expect(q.executionPrice / 1.05334948789e-9).toBeGreaterThan(1);
      expect(q.executionPrice / 1.05334948789e-9).toBeLessThan(1.01);
      const bought = (await call('POST', '/api/agent/spot/order', { coinId: '10407', side: 'buy', orderType: 'market', quantity: 1e9, idempotencyKey: 'tiny-price-buy' })).json();
      expect(bought.summary.executionPrice).toBe(q.executionPrice);
      const resting = (await call('POST', '/api/agent/spot/order', { coinId: '10407', side: 'buy', orderType: 'limit', quantity: 1e10, limitPrice: 9.5e-10, idempotencyKey: 'tiny-price-limit' })).json();
      expect(resting.summary).toMatchObject({ limitPrice: 9.5e-10 });
      expect((await call('GET', '/api/agent/orders/open')).body).toContain('9.5e-10');
      // cost basis: the execution price plus the 10 bps fee, to 8 significant digits
      expect((await call('GET', '/api/agent/wallet?coinId=10407')).json().coin.avgCostUsd / q.executionPrice).toBeCloseTo(1.001, 6);
    } finally {
      await app.close();
    }
  });

  it('answers 404 coin_not_found for an unknown coin and 400 for bad input or the cash coin', async () => {
    const { key } = await t.newKey();
    expect((await quote(key, { coinId: '999999', side: 'buy', quantity: 1 })).json()).toMatchObject({ error: 'coin_not_found' });
    for (const [body, field] of [
      [{ coinId: '1', side: 'buy', quantity: 0 }, 'body.quantity'],
      // finer than 8 decimals: it was quoted as `quantity: 0`, refused as below_min_notional
      [{ coinId: '1', side: 'buy', quantity: 1e-10 }, 'body.quantity'],
      [{ coinId: '1', side: 'hold', quantity: 1 }, 'body.side'],
      [{ coinId: '1', side: 'buy' }, 'body.quantity'],
      [{ coinId: '825', side: 'buy', quantity: 1 }, 'body.coinId'],
    ] as const) {
      const res = await quote(key, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field });
    }
  });
});

describe('market orders', () => {
  it('a buy then a sell at an unchanged mid is a small loss, booked in cash, holdings, trades and the journal', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const buy = await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    expect(buy.statusCode).toBe(200);
    const b = buy.json();
    expect(b.orderId).toBeTypeOf('number');
    expect(b.summary).toMatchObject({ side: 'buy', quantity: 0.1, executionPrice: 50_007.5, totalCost: 5000.75, pnl: null, feeUsd: 5.00075 });
    expect(b.summary.executionModel.version).toBe('paper_execution_v1');
    expect((await wallet(keyId)).available.toNumber()).toBeCloseTo(50_000 - 5000.75 - 5.00075, 8);
    expect(await holding(keyId)).toMatchObject({ available: expect.anything() });
    expect((await holding(keyId)).available.toNumber()).toBe(0.1);
    // the cost basis holds the buy's fee: 50,007.5 + 5.00075 / 0.1
    expect((await holding(keyId)).avgCostUsd.toNumber()).toBe(50_057.5075);

    const sellRes = await order(key, { coinId: "1", side: "sell", orderType: "market", quantity: 0.1 });
    const sell = sellRes.json();
    expect(sellRes.statusCode, sellRes.body).toBe(200);
    // sells at 49,992.5; PnL = (49,992.5 − 50,057.5075) × 0.1 − fee 4.99925: both fills' costs
    expect(sell.summary).toMatchObject({ side: 'sell', executionPrice: 49_992.5, pnl: -11.5 });
    const cash = (await wallet(keyId)).available.toNumber();
    // flat again: the realized PnL is exactly what the round trip cost in cash (contract §1 item 1)
    expect(cash - 50_000).toBeCloseTo(-11.5, 8);
    expect((await holding(keyId)).available.toNumber()).toBe(0);

    const trades = (await get(key, '/api/agent/trades')).json();
    expect(trades.trades.map((r: { id: number }) => r.id)).toEqual([sell.orderId, b.orderId]);
    expect(trades.trades[0]).toMatchObject({ venue: 'spot', side: 'sell', coinId: '1', symbol: 'BTC', realizedPnlMusd: -11.5 });
    expect(trades.trades[1]).toMatchObject({ side: 'buy', realizedPnlMusd: null });
    await doctorOk();
  });

  it('takes a quantity to the 8 decimals balances show (cut, never rounded up): the balance shown is the balance sold', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const asked = 0.123456789; // e.g. budget / price in floating point
    const q = (await quote(key, { coinId: '1', side: 'buy', quantity: asked })).json();
    expect(q.quantity).toBe(0.12345678);
    const buy = await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: asked });
    expect(buy.json().summary.quantity).toBe(0.12345678);
    expect((await holding(keyId)).available.toString()).toBe('0.12345678');
    const shown = (await get(key, '/api/agent/wallet?coinId=1')).json().coin.available;
    expect(shown).toBe(0.12345678);
    const sell = await order(key, { coinId: '1', side: 'sell', orderType: 'market', quantity: shown });
    expect(sell.statusCode, sell.body).toBe(200);
    expect((await holding(keyId)).available.isZero()).toBe(true);
    // a resting order keeps the cut quantity too
    const rest = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.019999999, limitPrice: 40_000 })).json();
    expect(rest.summary.quantity).toBe(0.01999999);
    await doctorOk();
  });

  it('refuses with 400 spot_order_blocked and moves nothing: no cash, no coins, stale or missing price', async () => {
    const { key, keyId } = await t.newKey();
    const cases: [object, string][] = [
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: 10 }, 'insufficient_usdt_balance'],
      [{ coinId: '1', side: 'sell', orderType: 'market', quantity: 1 }, 'insufficient_coin_balance'],
      [{ coinId: '1027', side: 'buy', orderType: 'market', quantity: 1 }, 'price_unavailable'],
      // a limit or stop without a price would rest, then fill at its limit however far the market had moved
      [{ coinId: '1027', side: 'buy', orderType: 'limit', quantity: 1, limitPrice: 5_000 }, 'price_unavailable'],
      [{ coinId: '1027', side: 'sell', orderType: 'stop', quantity: 1, stopPrice: 2_000, limitPrice: 1_900 }, 'price_unavailable'],
      [{ coinId: '1', side: 'sell', orderType: 'limit', quantity: 1, limitPrice: 60_000 }, 'insufficient_coin_balance'],
      [{ coinId: '1', side: 'buy', orderType: 'limit', quantity: 1, limitPrice: 60_000 }, 'insufficient_usdt_balance'],
      // Worth less than 0.01 mUSD: such a fill rounded to quantity, notional and fee 0 yet counted as a trade.
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: 1e-8 }, 'below_min_notional'],
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: 1.9e-7 }, 'below_min_notional'],
      [{ coinId: '1', side: 'buy', orderType: 'limit', quantity: 1, limitPrice: 1e-30 }, 'below_min_notional'],
      [{ coinId: '1', side: 'buy', orderType: 'stop', quantity: 0.0000001, stopPrice: 60_000, limitPrice: 60_000 }, 'below_min_notional'],
    ];
    for (const [body, reason] of cases) {
      const res = await order(key, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'spot_order_blocked', blockReasons: [reason] });
      expect(res.headers['x-service-ledger-status']).toBe('rejected');
    }
    t.clock.advance(121_000); // the last BTC tick is now past the 120 s stale mark
    for (const body of [
      { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01 },
      { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 60_000 },
      { coinId: '1', side: 'buy', orderType: 'stop', quantity: 0.01, stopPrice: 55_000, limitPrice: 56_000 },
    ]) {
      const stale = await order(key, body);
      expect(stale.json(), body.orderType).toMatchObject({ error: 'spot_order_blocked', blockReasons: ['price_unavailable'] });
    }
    // the quote says so too, as it did not: eligible with a price the order refused
    const quote = await t.app.inject({ method: 'POST', url: '/api/agent/spot/quote', headers: bearer(key), payload: { coinId: '1', side: 'buy', quantity: 0.01 } });
    expect(quote.json()).toMatchObject({ eligible: false, blockReasons: ['price_unavailable'], freshness: { status: 'stale' } });
    tick(50_000);
    const w = await findWallet(t.ctx.database.db, keyId);
    expect(w === null || w.available.toNumber() === 50_000).toBe(true);
  });

  it('rejects malformed orders with 400 naming the field, and unknown coins with 404', async () => {
    const { key } = await t.newKey();
    const cases: [object, string][] = [
      [{ coinId: '1', side: 'buy', orderType: 'limit', quantity: 1 }, 'body.limitPrice'],
      [{ coinId: '1', side: 'buy', orderType: 'stop', quantity: 1, limitPrice: 1 }, 'body.stopPrice'],
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: 1, limitPrice: 1 }, 'body.limitPrice'],
      [{ coinId: '1', side: 'buy', orderType: 'limit', quantity: 1, limitPrice: 1, stopPrice: 2 }, 'body.stopPrice'],
      [{ coinId: '1', side: 'buy', orderType: 'twap', quantity: 1 }, 'body.orderType'],
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: -1 }, 'body.quantity'],
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: 1e-10 }, 'body.quantity'],
      [{ coinId: '1', side: 'buy', orderType: 'limit', quantity: 1, limitPrice: 0 }, 'body.limitPrice'],
      [{ coinId: '1', side: 'buy', orderType: 'market', quantity: 1, extra: 1 }, 'body.extra'],
    ];
    for (const [body, field] of cases) {
      const res = await order(key, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field });
    }
    const missingKey = await post(key, '/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 1 });
    expect(missingKey.json()).toMatchObject({ error: 'invalid_request', field: 'body.idempotencyKey' });
    const unknown = await order(key, { coinId: '424242', side: 'buy', orderType: 'market', quantity: 1 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('coin_not_found');
  });

  it('replays the same intent without a second fill, and 409s a reused key with another intent', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const body = { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: 'once' };
    const first = (await post(key, '/api/agent/spot/order', body)).json();
    tick(51_000);
    const replay = await post(key, '/api/agent/spot/order', { ...body, agentTrace: { runId: 'r' } });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['x-service-ledger-status']).toBe('idempotent_replay');
    const r = replay.json();
    expect(r).toMatchObject({ orderId: first.orderId, idempotentReplay: true });
    expect(r.summary).toMatchObject({
      executionPrice: first.summary.executionPrice,
      executionModel: null,
      executionModelStatus: 'historical_parameters_not_retained',
      executionVersion: 'paper_execution_v1',
    });
    expect(first.idempotentReplay).toBeUndefined();
    expect((await holding(keyId)).available.toNumber()).toBe(0.01);
    // a field sent as null is the same request as one left out
    const withNulls = await post(key, '/api/agent/spot/order', { ...body, limitPrice: null, stopPrice: null });
    expect(withNulls.statusCode).toBe(200);
    expect(withNulls.json()).toMatchObject({ orderId: first.orderId, idempotentReplay: true });
    const conflict = await post(key, '/api/agent/spot/order', { ...body, quantity: 0.02 });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toBe('idempotency_key_conflict');
    expect((await holding(keyId)).available.toNumber()).toBe(0.01);
  });
});

describe('resting orders and the matcher', () => {
  it('a limit buy freezes limit × qty + fee, fills at the limit only once the market trades through it', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const placed = await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.5, limitPrice: 48_000, idempotencyKey: 'lim' });
    expect(placed.statusCode).toBe(200);
    const p = placed.json();
    expect(p.orderId).toBeUndefined();
    expect(p.summary).toMatchObject({ orderType: 'limit', limitPrice: 48_000, side: 'buy', quantity: 0.5 });
    const frozen = 48_000 * 0.5 * 1.001;
    expect((await wallet(keyId)).frozen.toNumber()).toBeCloseTo(frozen, 8);
    expect((await wallet(keyId)).available.toNumber()).toBeCloseTo(50_000 - frozen, 8);

    const open = (await get(key, '/api/agent/orders/open')).json();
    expect(open.rows).toHaveLength(1);
    expect(open.rows[0]).toMatchObject({ id: p.restingOrderId, side: 'buy', orderType: 'limit', coinId: '1', limitPrice: 48_000, stopPrice: null, quantity: 0.5, quantityFilled: 0, triggered: null, status: 'open' });
    // Seed 2.11 / reference B11: top-level coinId echoes the filter, null when listing all coins.
    expect(open.coinId).toBeNull();
    const filtered = (await get(key, '/api/agent/orders/open?coinId=1')).json();
    expect(filtered.coinId).toBe('1');
    expect(filtered.rows).toHaveLength(1);
    expect((await get(key, '/api/agent/orders/open?coinId=2')).json()).toMatchObject({ coinId: '2', rows: [] });

    tick(49_000);
    tick(48_500);
    expect((await match()).filled).toBe(0);
    tick(47_900); // traded through 48,000
    expect(await match()).toMatchObject({ filled: 1 });
    const w = await wallet(keyId);
    expect(w.frozen.toNumber()).toBe(0);
    expect(w.available.toNumber()).toBeCloseTo(50_000 - frozen, 8);
    expect((await holding(keyId)).available.toNumber()).toBe(0.5);
    expect((await holding(keyId)).avgCostUsd.toNumber()).toBe(48_048); // 48,000 + the 10 bps fee
    expect((await get(key, '/api/agent/orders/open')).json().rows).toHaveLength(0);
    const [fill] = (await get(key, '/api/agent/trades?venue=spot')).json().trades;
    expect(fill).toMatchObject({ side: 'buy', realizedPnlMusd: null, detail: { orderType: 'limit', executionPrice: 48_000, orderId: p.restingOrderId } });

    // The key stays bound to the order after the fill: a replay returns the original acceptance.
    const replay = await post(key, '/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.5, limitPrice: 48_000, idempotencyKey: 'lim' });
    expect(replay.json()).toMatchObject({ restingOrderId: p.restingOrderId, idempotentReplay: true, summary: { orderType: 'limit' } });
    expect((await holding(keyId)).available.toNumber()).toBe(0.5);
    expect(await match()).toMatchObject({ filled: 0 });
    await doctorOk();
  });

  it('a limit sell freezes coins and realizes PnL on the average cost, net of fee', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const buy = (await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.2 })).json();
    const avg = (buy.summary.executionPrice as number) * 1.001; // cost basis: price + 10 bps fee
    await order(key, { coinId: '1', side: 'sell', orderType: 'limit', quantity: 0.2, limitPrice: 52_000 });
    expect((await holding(keyId)).frozen.toNumber()).toBe(0.2);
    expect((await holding(keyId)).available.toNumber()).toBe(0);
    // a frozen coin cannot be sold twice
    const again = await order(key, { coinId: '1', side: 'sell', orderType: 'market', quantity: 0.1 });
    expect(again.json().blockReasons).toEqual(['insufficient_coin_balance']);
    tick(52_100);
    expect(await match()).toMatchObject({ filled: 1 });
    const [sell] = (await get(key, '/api/agent/trades')).json().trades;
    const fee = 52_000 * 0.2 * 0.001;
    expect(sell.realizedPnlMusd).toBeCloseTo((52_000 - avg) * 0.2 - fee, 6);
    expect((await holding(keyId)).frozen.toNumber()).toBe(0);
    await doctorOk();
  });

  it('a stop sell triggers at the stop, then rests and fills as a limit when its limit is not marketable (never on the trigger window itself)', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    const placed = (await order(key, { coinId: '1', side: 'sell', orderType: 'stop', quantity: 0.1, stopPrice: 45_000, limitPrice: 44_990 })).json();
    expect(placed.summary).toMatchObject({ orderType: 'stop', stopPrice: 45_000, limitPrice: 44_990, triggered: false });
    tick(46_000);
    expect(await match()).toMatchObject({ triggered: 0, filled: 0 });
    tick(44_950); // executable sell price ≈ 44,945 < limit 44,990: not marketable, so it rests
    expect(await match()).toMatchObject({ triggered: 1, filled: 0 });
    const open = (await get(key, '/api/agent/orders/open')).json().rows;
    expect(open[0]).toMatchObject({ id: placed.restingOrderId, triggered: true, status: 'triggered' });
    tick(44_995);
    expect(await match()).toMatchObject({ filled: 1 });
    expect((await holding(keyId)).frozen.toNumber()).toBe(0);
    const [sell] = (await get(key, '/api/agent/trades')).json().trades;
    expect(sell.detail).toMatchObject({ orderType: 'stop', executionPrice: 44_990, stopPrice: 45_000, slippageMusd: 0 });
    await doctorOk();
  });

  it('a stop sell that triggers while its limit is marketable fills at once as a taker at the market price, never below the limit', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    await order(key, { coinId: '1', side: 'sell', orderType: 'stop', quantity: 0.1, stopPrice: 45_000, limitPrice: 44_900 });
    tick(44_950);
    const quote = (await post(key, '/api/agent/spot/quote', { coinId: '1', side: 'sell', quantity: 0.1 })).json();
    expect(await match()).toMatchObject({ triggered: 1, filled: 1 });
    expect((await holding(keyId)).frozen.toNumber()).toBe(0);
    const [sell] = (await get(key, '/api/agent/trades')).json().trades;
    expect(sell.detail).toMatchObject({ orderType: 'stop', marketable: true, midPrice: 44_950, executionPrice: quote.executionPrice });
    expect(sell.detail.executionPrice).toBeGreaterThanOrEqual(44_900);
    expect(sell.detail.executionPrice).toBeLessThan(44_950);
    expect(sell.detail.feeMusd).toBeCloseTo(quote.estimatedFeeMusd, 8);
    // the order's row says the stop was hit, though it filled in the pass that saw it
    const [row] = (await get(key, `/api/agent/orders/open?updatedSince=${new Date(t.clock.now() - 60_000).toISOString()}`)).json().rows;
    expect(row).toMatchObject({ status: 'filled', triggered: true });
    await doctorOk();
  });

  it('the matcher stamps each fill when it is written, not when its pass began', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const placed = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 49_000 })).json();
    tick(48_000);
    const passStart = t.clock.now();
    // a pass that runs long: the fill is written 30 s after the pass began
    await matchRestingOrders(t.ctx.database, t.market, passStart, () => passStart + 30_000);
    const [fill] = (await get(key, '/api/agent/trades')).json().trades;
    expect(fill.detail.orderId).toBe(placed.restingOrderId);
    expect(fill.closedAt).toBe(new Date(passStart + 30_000).toISOString());
    // a stop it triggers (limit not marketable) is stamped then, but the market was examined only up to the pass's start
    const stop = (await order(key, { coinId: '1', side: 'buy', orderType: 'stop', quantity: 0.001, stopPrice: 48_500, limitPrice: 40_000 })).json();
    tick(48_600);
    const start = t.clock.now();
    await matchRestingOrders(t.ctx.database, t.market, start, () => start + 30_000);
    const [row] = await queryRows<{ status: string; triggered_at: Date; checked_until: Date }>(
      t.ctx.database.db,
      sql`select status, triggered_at, checked_until from spot_orders where id = ${stop.restingOrderId}`,
    );
    expect([row!.status, new Date(row!.triggered_at).getTime(), new Date(row!.checked_until).getTime()]).toEqual(['triggered', start + 30_000, start]);
  });

  it('a stop buy whose trigger the mark already meets rests as triggered at once', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const placed = (await order(key, { coinId: '1', side: 'buy', orderType: 'stop', quantity: 0.1, stopPrice: 49_000, limitPrice: 49_500 })).json();
    expect(placed.summary.triggered).toBe(true);
    expect((await get(key, '/api/agent/orders/open')).json().rows[0]).toMatchObject({ status: 'triggered', triggered: true });
  });

  it('never fills on prices from before the order was placed', async () => {
    tick(40_000); // a dip before the order exists
    tick(50_000);
    const { key } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 45_000 });
    tick(50_100);
    await match();
    expect((await get(key, '/api/agent/orders/open')).json().count).toBe(1);
    expect((await get(key, '/api/agent/trades')).json().count).toBe(0);
  });
});

describe('marketable limit orders (issue 12 item 8)', () => {
  it('a limit buy far above the market fills at once at the market execution price of that moment, not at its limit', async () => {
    tick(96_350);
    const { key, keyId } = await t.newKey();
    const q = (await quote(key, { coinId: '1', side: 'buy', quantity: 0.1 })).json();
    const before = (await wallet(keyId)).available.toNumber();
    const sent = { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 105_991, idempotencyKey: `marketable-${keyId}` };
    const res = await order(key, sent);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.restingOrderId).toBeUndefined();
    // the fill names its trade as tradeId; orderId (market fills only, supplement 1.2) shared numbers with
    // resting order ids, so a cancel by it could hit another order
    expect(body.orderId).toBeUndefined();
    expect((await get(key, '/api/agent/trades')).json().trades.map((r: { id: number }) => r.id)).toEqual([body.tradeId]);
    // its replay is a fill's replay (no execution model kept), and the ledger rows name the fill
    const again = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 105_991, idempotencyKey: sent.idempotencyKey })).json();
    expect(again).toMatchObject({ tradeId: body.tradeId, idempotentReplay: true, summary: { executionModel: null, executionModelStatus: 'historical_parameters_not_retained' } });
    const rows = (await get(key, '/api/agent/ledger?eventType=write')).json().data as { relatedEntityType: string; relatedEntityId: string }[];
    expect(rows.map((r) => [r.relatedEntityType, r.relatedEntityId])).toEqual([
      ['spot_fill', String(body.tradeId)],
      ['spot_fill', String(body.tradeId)],
    ]);
    expect(body.summary).toMatchObject({ orderType: 'limit', limitPrice: 105_991, marketable: true, executionPrice: q.executionPrice, feeUsd: q.estimatedFeeMusd });
    // the report figure: fill price against the quote at the same moment
    console.info(`marketable limit buy @105,991 with mid 96,350: filled at ${body.summary.executionPrice}, market quote ${q.executionPrice}`);
    expect(body.summary.executionPrice).toBeLessThan(96_400);
    expect((await wallet(keyId)).available.toNumber()).toBeCloseTo(before - q.estimatedCostMusd - q.estimatedFeeMusd, 6);
    expect((await wallet(keyId)).frozen.toNumber()).toBe(0);
    expect((await get(key, '/api/agent/orders/open')).json().rows).toHaveLength(0);
    await doctorOk();
  });

  it('a limit sell at or below the executable sell price fills at once; at exactly the executable price too', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.2 });
    const q = (await quote(key, { coinId: '1', side: 'sell', quantity: 0.1 })).json();
    const low = (await order(key, { coinId: '1', side: 'sell', orderType: 'limit', quantity: 0.1, limitPrice: 40_000 })).json();
    expect(low.summary).toMatchObject({ marketable: true, executionPrice: q.executionPrice });
    const exact = (await order(key, { coinId: '1', side: 'sell', orderType: 'limit', quantity: 0.1, limitPrice: q.executionPrice })).json();
    expect(exact.summary).toMatchObject({ marketable: true, executionPrice: q.executionPrice });
    expect((await holding(keyId)).available.toNumber()).toBeCloseTo(0, 10);
    await doctorOk();
  });

  it('a limit just better than the executable price rests and later fills at its limit with the fee only', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const q = (await quote(key, { coinId: '1', side: 'buy', quantity: 0.1 })).json();
    const rest = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: q.executionPrice - 1 })).json();
    expect(typeof rest.restingOrderId).toBe('number');
    tick(49_000);
    await match(); // (other tests' orders may fill too)
    const [fill] = (await get(key, '/api/agent/trades')).json().trades;
    expect(fill.detail).toMatchObject({ orderType: 'limit', executionPrice: q.executionPrice - 1, slippageMusd: 0 });
    await doctorOk();
  });

  it('a stop-limit buy placed already triggered with a marketable limit fills at once; a marketable one it cannot afford is refused', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const q = (await quote(key, { coinId: '1', side: 'buy', quantity: 0.1 })).json();
    const res = (await order(key, { coinId: '1', side: 'buy', orderType: 'stop', quantity: 0.1, stopPrice: 49_000, limitPrice: 51_000 })).json();
    expect(res.summary).toMatchObject({ orderType: 'stop', stopPrice: 49_000, marketable: true, executionPrice: q.executionPrice });
    const broke = await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 10, limitPrice: 60_000 });
    expect(broke.statusCode).toBe(400);
    expect(broke.json()).toMatchObject({ error: 'spot_order_blocked', blockReasons: ['insufficient_usdt_balance'] });
    await doctorOk();
  });
});

describe('POST /api/agent/spot/order/{id}/cancel', () => {
  it('releases the frozen cash or coins; a second cancel, a filled order or an unknown id is alreadyClosed', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    const before = await wallet(keyId);
    const buy = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 40_000 })).json();
    const sell = (await order(key, { coinId: '1', side: 'sell', orderType: 'limit', quantity: 0.1, limitPrice: 60_000 })).json();
    expect((await wallet(keyId)).frozen.toNumber()).toBeGreaterThan(0);
    expect((await holding(keyId)).frozen.toNumber()).toBe(0.1);

    const c1 = await cancel(key, buy.restingOrderId);
    expect(c1.statusCode).toBe(200);
    expect(c1.json()).toEqual({ ok: true });
    expect((await cancel(key, sell.restingOrderId)).json()).toEqual({ ok: true });
    const after = await wallet(keyId);
    expect(after.available.toString()).toBe(before.available.toString());
    expect(after.frozen.toNumber()).toBe(0);
    expect((await holding(keyId)).available.toNumber()).toBe(0.1);
    expect((await holding(keyId)).frozen.toNumber()).toBe(0);

    expect((await cancel(key, buy.restingOrderId)).json()).toEqual({ ok: true, alreadyClosed: true });
    expect((await cancel(key, 987_654)).json()).toEqual({ ok: true, alreadyClosed: true });
    // a limit order replayed after its cancel still returns the original acceptance, not a new order
    const open = (await get(key, '/api/agent/orders/open')).json();
    expect(open.rows).toHaveLength(0);
    await doctorOk();
  });

  it('cancels for a client that sends Content-Type: application/json with no body; a write that needs a body still refuses none', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const placed = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 40_000 })).json();
    const json = { ...bearer(key), 'content-type': 'application/json' };
    const cancelled = await t.app.inject({ method: 'POST', url: `/api/agent/spot/order/${placed.restingOrderId}/cancel`, headers: json, payload: '' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toEqual({ ok: true });
    expect((await wallet(keyId)).frozen.toNumber()).toBe(0);
    const bodyless = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: json, payload: '' });
    expect(bodyless.statusCode).toBe(400);
    expect(bodyless.json()).toMatchObject({ error: 'invalid_request', field: 'body' });
    const poisoned = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: json, payload: '{"__proto__":{"x":1}}' });
    expect(poisoned.statusCode).toBe(400);
  });

  it("never reveals or touches another key's order", async () => {
    tick(50_000);
    const a = await t.newKey();
    const b = await t.newKey();
    const placed = (await order(a.key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 40_000 })).json();
    expect((await cancel(b.key, placed.restingOrderId)).json()).toEqual({ ok: true, alreadyClosed: true });
    expect((await get(b.key, '/api/agent/orders/open')).json().rows).toHaveLength(0);
    expect((await get(b.key, '/api/agent/trades')).json().trades).toHaveLength(0);
    const rows = (await get(a.key, '/api/agent/orders/open')).json().rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('open');
  });

  it('answers 400 for a bad id', async () => {
    const { key } = await t.newKey();
    for (const id of ['abc', '0', '-3', '1.5']) {
      const res = await cancel(key, id);
      expect(res.statusCode, id).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field: expect.stringContaining('params') });
    }
  });
});

describe('money under concurrency', () => {
  it('100 concurrent market buys on one key never overspend: cash stays ≥ 0 and the books balance', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    // each buy costs ≈ 1,000.9 mUSD with fee: at most 49 fit into 50,000
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.02 })),
    );
    const filled = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 400);
    expect(filled.length + refused.length).toBe(100);
    expect(filled).toHaveLength(49);
    for (const r of refused) expect(r.json().blockReasons).toEqual(['insufficient_usdt_balance']);
    const w = await wallet(keyId);
    expect(w.available.toNumber()).toBeGreaterThanOrEqual(0);
    expect((await holding(keyId)).available.toNumber()).toBeCloseTo(49 * 0.02, 10);
    expect(new Set(filled.map((r) => r.json().orderId)).size).toBe(49);
    await doctorOk();
  });

  it('concurrent limit orders, cancels and a matcher pass keep every book equal to its journal', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const placed = await Promise.all(
      Array.from({ length: 40 }, (_, i) => order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.05, limitPrice: 49_000 + i * 10 })),
    );
    const ids = placed.filter((r) => r.statusCode === 200).map((r) => r.json().restingOrderId as number);
    tick(49_150);
    await Promise.all([match(), ...ids.map((id) => cancel(key, id)), ...ids.slice(0, 10).map((id) => cancel(key, id))]);
    const w = await wallet(keyId);
    expect(w.frozen.toNumber()).toBe(0);
    expect(w.available.toNumber()).toBeGreaterThanOrEqual(0);
    expect((await get(key, '/api/agent/orders/open')).json().rows).toHaveLength(0);
    await doctorOk();
  });
});

let n = 0;
keyedRouteSecurity(() => defaults, { method: 'POST', url: '/api/agent/spot/quote', scope: 'read', payload: { coinId: '1', side: 'buy', quantity: 0.001 } });
keyedRouteSecurity(() => defaults, {
  method: 'POST',
  url: '/api/agent/spot/order',
  scope: 'trade:spot',
  tradeWrite: true,
  payload: () => ({ coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.0001, limitPrice: 1000, idempotencyKey: `sec-${(n += 1)}` }),
});
keyedRouteSecurity(() => defaults, { method: 'POST', url: '/api/agent/spot/order/1/cancel', scope: 'trade:spot', tradeWrite: true });
