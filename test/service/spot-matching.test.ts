import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceRange } from '../../src/marketdata/feed.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/storage/db.js';
import { matchRestingOrders } from '../../src/workers/spot-matching.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { FixedMarketFeed } from '../support/fixed-market.js';

/** Like the sim feed: priceRange answers from whole 1-minute bars overlapping the window. */
class MinuteBarFeed extends FixedMarketFeed {
  private readonly all: { coinId: string; atMs: number; price: number }[] = [];
  override set(coinId: string, priceUsd: number, atMs: number): void {
    super.set(coinId, priceUsd, atMs);
    this.all.push({ coinId, atMs, price: priceUsd });
  }
  override priceRange(coinId: string, fromMs: number, toMs: number): PriceRange | null {
    const inBars = this.all.filter((t) => t.coinId === coinId && Math.floor(t.atMs / 60_000) * 60_000 + 60_000 > fromMs && t.atMs <= toMs);
    if (inBars.length === 0) return null;
    return { low: Math.min(...inBars.map((t) => t.price)), high: Math.max(...inBars.map((t) => t.price)) };
  }
}

let t: TestApp;
const market = new MinuteBarFeed();
beforeAll(async () => {
  t = await createTestApp({ market, config: { agentRpm: 100_000, tradeWpm: 100_000 } });
});
afterAll(async () => t.close());

const at = (minute: number, second: number) => Date.UTC(2026, 10, 22, 13, minute, second);
const place = (key: string, body: object) =>
  t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, ...body } });
const openCount = async (key: string) => (await t.app.inject({ method: 'GET', url: '/api/agent/orders/open', headers: bearer(key) })).json().count as number;

describe('resting-order matcher on a feed with 1-minute bars', () => {
  it('never fills on a dip earlier in the minute the order was placed in', async () => {
    const { key } = await t.newKey();
    market.set('1', 44_000, at(0, 5)); // the dip, before the order
    market.set('1', 50_000, at(0, 15));
    t.clock.set(at(0, 20));
    expect((await place(key, { limitPrice: 45_000, idempotencyKey: 'a' })).statusCode).toBe(200);
    market.set('1', 50_100, at(0, 30));
    t.clock.set(at(0, 30));
    await matchRestingOrders(t.ctx.database, market, t.clock.now());
    market.set('1', 50_200, at(1, 10));
    t.clock.set(at(1, 10));
    await matchRestingOrders(t.ctx.database, market, t.clock.now());
    expect(await openCount(key)).toBe(1);
  });

  it('catches up after a gap: a dip through the limit while the matcher did not run still fills', async () => {
    const { key } = await t.newKey();
    market.set('1', 50_000, at(10, 0));
    t.clock.set(at(10, 5));
    await place(key, { limitPrice: 45_000, idempotencyKey: 'b' });
    await matchRestingOrders(t.ctx.database, market, t.clock.now());
    market.set('1', 44_500, at(12, 30)); // nobody looked at this minute
    market.set('1', 51_000, at(15, 0));
    t.clock.set(at(15, 5));
    await matchRestingOrders(t.ctx.database, market, t.clock.now());
    expect(await openCount(key)).toBe(0);
    const [fill] = (await t.app.inject({ method: 'GET', url: '/api/agent/trades', headers: bearer(key) })).json().trades;
    expect(fill.detail).toMatchObject({ executionPrice: 45_000, orderType: 'limit' });
  });

  it('moves a resting order\'s check mark only every 15 minutes, and a dip after the unmoved mark still fills', async () => {
    const { key } = await t.newKey();
    market.set('1', 50_000, at(20, 0));
    t.clock.set(at(20, 5));
    const placed = (await place(key, { limitPrice: 45_000, idempotencyKey: 'c' })).json();
    const mark = async () => {
      const rows = await queryRows<{ checked: Date; xmin: string }>(
        t.ctx.database.db,
        sql`select checked_until as checked, xmin::text as xmin from spot_orders where id = ${placed.restingOrderId}`,
      );
      return { checkedMs: new Date(rows[0]!.checked).getTime(), version: rows[0]!.xmin };
    };
    const before = await mark();
    for (const minute of [21, 25, 34]) {
      market.set('1', 50_000 + minute, at(minute, 0));
      t.clock.set(at(minute, 5));
      await matchRestingOrders(t.ctx.database, market, t.clock.now());
    }
    expect(await mark()).toEqual(before); // three passes, the row never rewritten
    t.clock.set(at(36, 0));
    await matchRestingOrders(t.ctx.database, market, t.clock.now());
    expect((await mark()).checkedMs).toBe(at(36, 0));
    market.set('1', 44_900, at(37, 30));
    market.set('1', 50_500, at(38, 0));
    t.clock.set(at(38, 5));
    await matchRestingOrders(t.ctx.database, market, t.clock.now());
    expect(await openCount(key)).toBe(0);
  });
});
