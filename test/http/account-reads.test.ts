import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { equityAdjustments } from '../../src/services/equity-adjustments.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { insertClosedTrade } from '../../src/storage/trades-repo.js';
import { snapshotEquity } from '../../src/workers/equity-snapshots.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
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

const DAY = 86_400_000;
let seq = 0;
const get = (key: string, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(key) });
const order = (key: string, body: object) =>
  t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { idempotencyKey: `r-${(seq += 1)}`, ...body } });
const tick = (price: number, coinId = '1') => {
  t.clock.advance(10_000);
  t.market.set(coinId, price, t.clock.now());
};
/** A decided trade on another venue, as the futures / PM engines will write them. */
async function otherVenueTrade(keyId: number, venue: 'futures' | 'pm', pnl: number, atMs = t.clock.now()) {
  const db = t.ctx.database.db;
  const wallet = (await findWallet(db, keyId))!;
  return db.transaction((tx) =>
    insertClosedTrade(tx, { keyId, walletId: wallet.id, venue, side: venue === 'pm' ? 'yes' : 'long', realizedPnl: new Decimal(pnl), closedAtMs: atMs, market: venue === 'pm' ? 'm' : null }),
  );
}

describe('GET /api/agent/wallet', () => {
  it('funds a new book on first read: 50,000 available, disjoint frozen partitions, no coin unless asked', async () => {
    const { key } = await t.newKey();
    const res = await get(key, '/api/agent/wallet');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      walletId: expect.any(Number),
      usdt: { coinId: '825', available: 50_000, frozen: 0, frozenPm: 0, frozenFutures: 0, avgCostUsd: 1 },
      coin: null,
    });
  });

  it('returns one coin asset with available, frozen (resting sells) and average cost', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.3 });
    await order(key, { coinId: '1', side: 'sell', orderType: 'limit', quantity: 0.1, limitPrice: 70_000 });
    const w = (await get(key, '/api/agent/wallet?coinId=1')).json();
    expect(w.coin).toMatchObject({ coinId: '1', available: 0.2, frozen: 0.1 });
    expect(w.coin.avgCostUsd).toBeGreaterThan(50_000);
    expect((await get(key, '/api/agent/wallet?coinId=5426')).json().coin).toEqual({ coinId: '5426', available: 0, frozen: 0, avgCostUsd: null });
    const unknown = await get(key, '/api/agent/wallet?coinId=31337');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('coin_not_found');
  });
});

describe('GET /api/agent/portfolio', () => {
  it('values holdings at mark, splits cash, reports period PnL, open orders and progression', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const buy = (await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.2 })).json();
    const resting = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.1, limitPrice: 40_000 })).json();
    tick(55_000);
    const p = (await get(key, '/api/agent/portfolio')).json();
    const spent = buy.summary.totalCost + buy.summary.feeUsd;
    const frozen = 40_000 * 0.1 * 1.001;
    expect(p.equity.available).toBeCloseTo(50_000 - spent - frozen, 6);
    expect(p.equity.frozen).toBeCloseTo(frozen, 6);
    expect(p.equity.cashTotal).toBeCloseTo(p.equity.available + p.equity.frozen + p.equity.frozenPm + p.equity.frozenFutures, 6);
    expect(p.equity.totalUsd).toBeCloseTo(50_000 - spent + 0.2 * 55_000, 6);
    expect(p.pnl.allTimeUsd).toBeCloseTo(p.equity.totalUsd - 50_000, 6);
    expect(p.pnl.allTimePct).toBeCloseTo((p.equity.totalUsd - 50_000) / 50_000, 8);
    for (const w of ['24h', '7d', '30d']) expect(p.pnl[`${w}Usd`]).toBeCloseTo(p.pnl.allTimeUsd, 6); // younger than every window
    expect(p.openOrders).toEqual([
      { id: resting.restingOrderId, side: 'buy', orderType: 'limit', coinId: '1', symbol: 'BTC', price: 40_000, stopPrice: null, quantity: 0.1, quantityFilled: 0, status: 'open', currentPriceUsd: 55_000 },
    ]);
    expect(p.progression).toMatchObject({ league: 'bronze', xpPoints: 0, rankInLeague: null });
    expect(p.progression.tasks.find((x: { id: string }) => x.id === 'first_trade').done).toBe(true);
    expect(p).toMatchObject({ fiat: 'USD', locale: 'en' });
  });


  it('sends cash buckets that add up to cashTotal exactly, and parts that add up to totalUsd', async () => {
    tick(50_123.456789);
    const { key } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.0123457 });
    const exact = (n: number) => new Decimal(String(n));
    // resting buys freeze limit × qty × 1.001: amounts with more than 8 decimals, each sent rounded
    for (let i = 0; i < 25; i += 1) {
      await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.0100001 + i * 1e-7, limitPrice: 1100.37 + i * 0.01 });
      const e = (await get(key, '/api/agent/portfolio')).json().equity;
      const buckets = exact(e.available).plus(exact(e.frozen)).plus(exact(e.frozenPm)).plus(exact(e.frozenFutures));
      expect(buckets.eq(exact(e.cashTotal)), `order ${i}: ${JSON.stringify(e)}`).toBe(true);
      expect(exact(e.cashTotal).plus(exact(e.spotHoldingsUsd)).plus(exact(e.otherVenuesUsd)).eq(exact(e.totalUsd)), `order ${i}`).toBe(true);
    }
  });
  it('takes window-start equity from daily snapshots, and adds venue adjustments (futures, PM) to equity', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await get(key, '/api/agent/wallet');
    await snapshotEquity(t.ctx.database, t.market, t.clock.now() - 2 * DAY); // a snapshot 2 days ago: 50,000
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    tick(60_000);
    const before = (await get(key, '/api/agent/portfolio')).json();
    expect(before.pnl['7dUsd']).toBeCloseTo(before.equity.totalUsd - 50_000, 6);

    // A venue whose rows are just the book's key id, worth 123.5 for this key.
    const adjust = { rows: sql`w.key_id`, value: (id: unknown) => new Decimal(id === keyId ? 123.5 : 0) };
    equityAdjustments.push(adjust);
    try {
      const after = (await get(key, '/api/agent/portfolio')).json();
      expect(after.equity.totalUsd).toBeCloseTo(before.equity.totalUsd + 123.5, 6);
      expect(after.equity.otherVenuesUsd).toBe(123.5);
    } finally {
      equityAdjustments.splice(equityAdjustments.indexOf(adjust), 1);
    }
  });

  it('compares 24 h PnL with the equity of 24 h ago (hourly snapshots), not with the end of yesterday', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    const HOUR = 3_600_000;
    const now = t.clock.now();
    await snapshotEquity(t.ctx.database, t.market, now - 25 * HOUR); // equity 25 h ago, BTC at 50,000
    const dayAgo = (await get(key, '/api/agent/portfolio')).json().equity.totalUsd;
    tick(60_000);
    // 23 h ago, BTC already at 60,000: also yesterday's (or today's) last daily value
    await snapshotEquity(t.ctx.database, t.market, now - 23 * HOUR);
    const p = (await get(key, '/api/agent/portfolio')).json();
    expect(p.pnl['24hUsd']).toBeCloseTo(p.equity.totalUsd - dayAgo, 6);
    expect(p.pnl['24hUsd']).toBeGreaterThan(900); // the 0.1 BTC gained ~1,000 since 24 h ago
    expect(p.pnl['24hPct']).toBeCloseTo((p.equity.totalUsd - dayAgo) / dayAgo, 8);

    // a book whose first snapshot came after the window's start (younger than 24 h) compares with
    // 50,000 — the daily row of that day holds a value taken after the start (it was used)
    const young = await t.newKey();
    await order(young.key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    await snapshotEquity(t.ctx.database, t.market, now - 23 * HOUR);
    tick(66_000);
    const y = (await get(young.key, '/api/agent/portfolio')).json();
    expect(y.pnl['24hUsd']).toBeCloseTo(y.pnl.allTimeUsd, 6);
    expect(y.pnl['24hUsd']).toBeGreaterThan(500);

    // hourly values older than 26 h are dropped by the next snapshot
    const hourly = async () =>
      (await t.ctx.database.db.execute(sql`select count(*)::int as n from equity_snapshots_hourly where key_id = ${keyId}`)) as unknown as { rows: { n: number }[] };
    expect((await hourly()).rows[0]!.n).toBe(2);
    await snapshotEquity(t.ctx.database, t.market, now + 2 * HOUR);
    expect((await hourly()).rows[0]!.n).toBe(2); // the one of 25 h ago went, this hour's came
  });

  it('counts an open futures position at mark: margin stays in cash, unrealized PnL is added', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/agent/futures/open',
      headers: bearer(key),
      payload: { coinId: '1', side: 'long', leverage: 5, marginMusd: 1_000, idempotencyKey: `fut-${(seq += 1)}` },
    });
    expect(opened.statusCode).toBe(201);
    const atEntry = (await get(key, '/api/agent/portfolio')).json();
    expect(atEntry.equity.frozenFutures).toBeCloseTo(1_000, 6);
    tick(51_000); // +2 %: 5,000 notional long gains 100
    const up = (await get(key, '/api/agent/portfolio')).json();
    expect(up.equity.cashTotal).toBeCloseTo(atEntry.equity.cashTotal, 6);
    expect(up.equity.totalUsd - atEntry.equity.totalUsd).toBeCloseTo(100, 4);
  });

  it('rejects a malformed fiat or locale with 400', async () => {
    const { key } = await t.newKey();
    expect((await get(key, '/api/agent/portfolio?fiat=euro')).json()).toMatchObject({ error: 'invalid_request', field: 'query.fiat' });
    expect((await get(key, '/api/agent/portfolio?locale=%20')).json()).toMatchObject({ error: 'invalid_request', field: 'query.locale' });
    expect((await get(key, '/api/agent/portfolio?fiat=eur&locale=de-DE')).json()).toMatchObject({ fiat: 'EUR', locale: 'de-DE' });
  });
});

describe('GET /api/agent/orders/open', () => {
  it('filters by coin and limit; updatedSince returns every order changed since, closed ones included', async () => {
    tick(50_000);
    t.market.set('1027', 3000, t.clock.now());
    const { key } = await t.newKey();
    const a = (await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 30_000 })).json();
    const b = (await order(key, { coinId: '1027', side: 'buy', orderType: 'limit', quantity: 1, limitPrice: 2000 })).json();
    const first = (await get(key, '/api/agent/orders/open')).json();
    expect(first.rows.map((r: { id: number }) => r.id).sort()).toEqual([a.restingOrderId, b.restingOrderId].sort());
    expect(first.asOf).toBeTypeOf('string');
    expect((await get(key, '/api/agent/orders/open?coinId=1027')).json().rows.map((r: { id: number }) => r.id)).toEqual([b.restingOrderId]);
    expect((await get(key, '/api/agent/orders/open?limit=1')).json().rows).toHaveLength(1);

    t.clock.advance(60_000);
    const cursor = (await get(key, '/api/agent/orders/open')).json().asOf;
    t.clock.advance(60_000);
    await t.app.inject({ method: 'POST', url: `/api/agent/spot/order/${a.restingOrderId}/cancel`, headers: bearer(key) });
    const delta = (await get(key, `/api/agent/orders/open?updatedSince=${encodeURIComponent(cursor)}`)).json();
    expect(delta.rows).toEqual([expect.objectContaining({ id: a.restingOrderId, status: 'cancelled' })]);
    expect(delta.updatedSince).toBe(cursor);
    expect((await get(key, '/api/agent/orders/open')).json().rows.map((r: { id: number }) => r.id)).toEqual([b.restingOrderId]);
  });

  it('rejects out-of-range parameters with 400', async () => {
    const { key } = await t.newKey();
    for (const [q, field] of [
      ['limit=0', 'query.limit'],
      ['limit=201', 'query.limit'],
      [`coinId=${'x'.repeat(65)}`, 'query.coinId'],
      ['updatedSince=yesterday', 'query.updatedSince'],
    ]) {
      const res = await get(key, `/api/agent/orders/open?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().field).toBe(field);
    }
  });
});

describe('GET /api/agent/trades', () => {
  it('lists every venue most recent first, filters by venue, limit and updatedSince', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    const empty = (await get(key, '/api/agent/trades')).json();
    expect(empty).toMatchObject({ walletId: null, venue: 'all', count: 0, updatedSince: null, trades: [] });
    const buy = (await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01 })).json();
    t.clock.advance(1000);
    const fut = await otherVenueTrade(keyId, 'futures', 12.5);
    t.clock.advance(1000);
    const pm = await otherVenueTrade(keyId, 'pm', -3);
    const all = (await get(key, '/api/agent/trades')).json();
    expect(all.trades.map((r: { id: number }) => r.id)).toEqual([pm, fut, buy.orderId]);
    expect(all.trades[0]).toMatchObject({ venue: 'pm', realizedPnlMusd: -3, market: 'm', coinId: null });
    expect((await get(key, '/api/agent/trades?venue=futures')).json().trades.map((r: { id: number }) => r.id)).toEqual([fut]);
    expect((await get(key, '/api/agent/trades?limit=2')).json().count).toBe(2);
    const since = new Date(t.clock.now() - 500).toISOString();
    expect((await get(key, `/api/agent/trades?updatedSince=${since}`)).json().trades.map((r: { id: number }) => r.id)).toEqual([pm]);
    // echoed as every instant of the API (as positions echo it), whatever offset the caller wrote
    const offsetForm = encodeURIComponent(since.replace('Z', '+00:00'));
    expect((await get(key, `/api/agent/trades?updatedSince=${offsetForm}`)).json().updatedSince).toBe(since);
    expect((await get(key, `/api/agent/orders/open?updatedSince=${offsetForm}`)).json().updatedSince).toBe(since);
    for (const q of ['venue=bonds', 'limit=0', 'limit=101']) expect((await get(key, `/api/agent/trades?${q}`)).statusCode).toBe(400);
  });
});

describe('delta polling past the limit (contract §4.1 rule 1)', () => {
  it('reads a burst larger than the limit over several polls, losing nothing and never splitting a millisecond', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01 });
    const base = t.clock.now() - 60_000;
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await otherVenueTrade(keyId, 'futures', i, base + i));
    for (let i = 0; i < 4; i++) ids.push(await otherVenueTrade(keyId, 'pm', 1, base + 10)); // one millisecond, more than the limit
    for (let i = 0; i < 2; i++) ids.push(await otherVenueTrade(keyId, 'futures', 2, base + 20));
    let cursor = new Date(base - 1).toISOString();
    const seen = new Set<number>();
    for (let poll = 0; poll < 20; poll++) {
      const page = (await get(key, `/api/agent/trades?updatedSince=${encodeURIComponent(cursor)}&limit=3`)).json();
      const times = page.trades.map((r: { closedAt: string }) => Date.parse(r.closedAt));
      expect(times).toEqual([...times].sort((a, b) => b - a)); // still most recent first
      if (page.trades.some((r: { id: number }) => ids.indexOf(r.id) >= 7 && ids.indexOf(r.id) < 11)) {
        expect(page.trades.filter((r: { closedAt: string }) => Date.parse(r.closedAt) === base + 10)).toHaveLength(4);
      }
      // at most the limit, but for the one millisecond holding more changes than it (else no poll could pass it)
      if (!page.trades.every((r: { closedAt: string }) => Date.parse(r.closedAt) === base + 10)) expect(page.count).toBeLessThanOrEqual(3);
      for (const r of page.trades) seen.add(r.id);
      expect(Date.parse(page.asOf)).toBeGreaterThanOrEqual(Date.parse(cursor));
      cursor = page.asOf;
      if (page.count === 0) break;
    }
    expect(ids.filter((id) => !seen.has(id))).toEqual([]);
    expect(Date.parse(cursor)).toBe(t.clock.now() - 5_000);
  });

  it('orders/open: a limit never splits a millisecond, and the next poll starts after it', async () => {
    tick(50_000);
    const { key } = await t.newKey();
    const since = new Date(t.clock.now() - 1).toISOString();
    const placed = [];
    for (let i = 0; i < 4; i++) placed.push((await order(key, { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.001, limitPrice: 20_000 + i })).json().restingOrderId);
    t.clock.advance(30_000);
    const page = (await get(key, `/api/agent/orders/open?updatedSince=${encodeURIComponent(since)}&limit=2`)).json();
    expect(page.rows.map((r: { id: number }) => r.id).sort()).toEqual([...placed].sort());
    expect(Date.parse(page.asOf)).toBe(Date.parse(since) + 2); // the millisecond after the orders'
  });
});

describe('GET /api/agent/equity-curve', () => {
  it('daily: one point per snapshot day, today live; empty for a key without a book', async () => {
    const fresh = await t.newKey();
    expect((await get(fresh.key, '/api/agent/equity-curve')).json()).toMatchObject({ walletId: null, granularity: 'daily', points: [], window: { days: 30 } });

    tick(50_000);
    const { key } = await t.newKey();
    await get(key, '/api/agent/wallet');
    for (const d of [3, 2, 1]) await snapshotEquity(t.ctx.database, t.market, t.clock.now() - d * DAY);
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    const curve = (await get(key, '/api/agent/equity-curve?days=2')).json();
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    expect(curve.points.map((p: { date: string }) => p.date)).toEqual([
      new Date(t.clock.now() - 2 * DAY).toISOString().slice(0, 10),
      new Date(t.clock.now() - DAY).toISOString().slice(0, 10),
      today,
    ]);
    expect(curve.points[0].usdValue).toBe(50_000);
    expect(curve.points[2].usdValue).toBeLessThan(50_000); // paid the costs of the buy
    for (const q of ['days=0', 'days=366', 'granularity=hourly']) expect((await get(key, `/api/agent/equity-curve?${q}`)).statusCode).toBe(400);
  });

  it('realized: one point per realization with the all-time cumulative total, oldest first', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await get(key, '/api/agent/wallet');
    await otherVenueTrade(keyId, 'futures', 10, t.clock.now() - 40 * DAY); // before the window, still in the cumulative
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 });
    const sell = (await order(key, { coinId: '1', side: 'sell', orderType: 'market', quantity: 0.05 })).json();
    t.clock.advance(1000);
    await otherVenueTrade(keyId, 'pm', 5);
    const curve = (await get(key, '/api/agent/equity-curve?granularity=realized')).json();
    expect(curve.granularity).toBe('realized');
    expect(curve.points).toHaveLength(2);
    expect(curve.points[0]).toMatchObject({ venue: 'spot', realizedPnlMusd: sell.summary.pnl });
    expect(curve.points[0].cumulativeRealizedPnlMusd).toBeCloseTo(10 + sell.summary.pnl, 8);
    expect(curve.points[1]).toMatchObject({ venue: 'pm', realizedPnlMusd: 5 });
    expect(curve.points[1].cumulativeRealizedPnlMusd).toBeCloseTo(15 + sell.summary.pnl, 8);
  });
});

describe('GET /api/agent/performance', () => {
  it('is all nulls and zeros before any decided trade', async () => {
    const { key, keyId } = await t.newKey();
    const p = (await get(key, '/api/agent/performance')).json();
    expect(p).toMatchObject({
      apiKeyId: keyId,
      totals: { realizedPnlMusd: 0, tradeCount: 0, winCount: 0, lossCount: 0, neutralCount: 0, winRate: null },
      evaluation: { maxDrawdownMusd: 0, profitFactor: null, averageWinMusd: null, averageLossMusd: null, activeDays: 0 },
    });
    expect(Object.keys(p.byVenue)).toEqual(['spot', 'futures', 'pm']);
  });

  it('aggregates decided trades of every venue, drawdown, and audit stats from the ledger', async () => {
    tick(50_000);
    const { key, keyId } = await t.newKey();
    await t.app.inject({ method: 'POST', url: '/api/agent/spot/quote', headers: bearer(key), payload: { coinId: '1', side: 'buy', quantity: 0.1 } });
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1 }); // quoted first
    await order(key, { coinId: '1', side: 'buy', orderType: 'market', quantity: 100 }); // rejected; also quoted first
    await t.app.inject({ method: 'GET', url: '/api/agent/me', headers: { ...bearer(key), 'x-service-run-id': 'run-1' } });
    await otherVenueTrade(keyId, 'futures', 100);
    await otherVenueTrade(keyId, 'futures', -40);
    await otherVenueTrade(keyId, 'pm', 0);
    await otherVenueTrade(keyId, 'pm', -20);
    const p = (await get(key, '/api/agent/performance')).json();
    expect(p.totals).toMatchObject({ realizedPnlMusd: 40, tradeCount: 4, winCount: 1, lossCount: 2, neutralCount: 1 });
    expect(p.totals.winRate).toBeCloseTo(1 / 3, 8);
    expect(p.byVenue.futures).toMatchObject({ realizedPnlMusd: 60, tradeCount: 2, winRate: 0.5 });
    expect(p.byVenue.pm).toMatchObject({ tradeCount: 2, neutralCount: 1, lossCount: 1, winRate: 0 });
    expect(p.byVenue.spot).toMatchObject({ tradeCount: 0, winRate: null }); // a buy is not a decided trade
    expect(p.evaluation.profitFactor).toBeCloseTo(100 / 60, 6);
    expect(p.evaluation).toMatchObject({ maxDrawdownMusd: 60, averageWinMusd: 100, averageLossMusd: -30, activeDays: 1 });
    expect(p.auditStats).toMatchObject({ quoteCount: 1, writeCount: 2, rejectionCount: 1, runIdEventCount: 1, quoteBeforeTradeRate: 1 });
    // quote, two orders, me (this performance call is recorded after it answers)
    expect(p.auditStats.ledgerEventCount).toBe(4);
    expect(p.auditStats.missingRunIdCount).toBe(3);
    expect(p.auditStats.runTraceCoverage).toBe(0.25);
  });
});

const reads = ['/api/agent/wallet', '/api/agent/portfolio', '/api/agent/orders/open', '/api/agent/trades', '/api/agent/equity-curve', '/api/agent/performance'];
for (const url of reads) keyedRouteSecurity(() => defaults, { method: 'GET', url, scope: 'read' });
