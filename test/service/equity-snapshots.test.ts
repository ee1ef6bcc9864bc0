import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/storage/db.js';
import { pmMarkets } from '../../src/storage/schema.js';
import { snapshotEquity } from '../../src/workers/equity-snapshots.js';
import { bearer } from '../support/app.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';

let t: PmTestApp;
let seq = 0;
beforeAll(async () => {
  t = await createPmApp({ config: { agentRpm: 1_000_000, tradeWpm: 1_000_000 } });
  t.market.set('1', 50_000, t.clock.now());
}, 180_000);
afterAll(async () => {
  await t.close();
});

const post = (key: string, url: string, payload: object) =>
  t.app.inject({ method: 'POST', url, headers: bearer(key), payload: { idempotencyKey: `snap-${(seq += 1)}`, ...payload } });
const snapshotOf = async (keyId: number, day: string) =>
  Number(
    (await queryRows<{ v: string }>(t.ctx.database.db, sql`select usd_value::text as v from equity_snapshots where key_id = ${keyId} and day = ${day}::date`))[0]?.v,
  );

describe('equity snapshot job (one INSERT … SELECT for every book)', () => {
  it('values every book exactly as the portfolio does: cash, spot at mark, futures PnL, PM marks', async () => {
    const rows = await t.ctx.database.db.select().from(pmMarkets);
    const market = rows.find((r) => (r.source === 'polymarket' || r.source === 'kalshi') && r.kind === 'binary' && r.status === 'open' && !r.resolutionState)!;
    const outcomes = market.outcomes as { externalMarketId: string }[];
    const mixed = await t.newKey();
    expect((await post(mixed.key, '/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.3 })).statusCode).toBe(200);
    expect((await post(mixed.key, '/api/agent/spot/order', { coinId: '1', side: 'sell', orderType: 'limit', quantity: 0.1, limitPrice: 90_000 })).statusCode).toBe(200);
    expect((await post(mixed.key, '/api/agent/futures/open', { coinId: '1', side: 'short', leverage: 3, marginMusd: 777 })).statusCode).toBe(201);
    const pm = await post(mixed.key, '/api/agent/pm/open', { source: market.source, slug: market.slug, outcomeExternalMarketId: outcomes[1]!.externalMarketId, stakeMusd: 123 });
    expect(pm.statusCode, pm.body).toBe(201);
    const cashOnly = await t.newKey();
    await t.app.inject({ method: 'GET', url: '/api/agent/wallet', headers: bearer(cashOnly.key) });
    t.clock.advance(10_000);
    t.market.set('1', 51_234.5678, t.clock.now());

    expect(await snapshotEquity(t.ctx.database, t.market, t.clock.now())).toBeGreaterThanOrEqual(2);
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    for (const k of [mixed, cashOnly]) {
      const portfolio = (await t.app.inject({ method: 'GET', url: '/api/agent/portfolio', headers: bearer(k.key) })).json();
      expect(await snapshotOf(k.keyId, day)).toBeCloseTo(portfolio.equity.totalUsd, 7);
    }
    const portfolio = (await t.app.inject({ method: 'GET', url: '/api/agent/portfolio', headers: bearer(mixed.key) })).json();
    expect(portfolio.equity.otherVenuesUsd).not.toBe(0); // the futures and PM parts were really valued
  });

  it('values a position gapped through its liquidation price at −margin until the risk job settles it (portfolio, positions, snapshot)', async () => {
    const k = await t.newKey();
    const price = 60_000;
    t.market.set('1', price, t.clock.now());
    const open = await post(k.key, '/api/agent/futures/open', { coinId: '1', side: 'long', leverage: 20, marginMusd: 100 });
    expect(open.statusCode, open.body).toBe(201);
    const before = (await t.app.inject({ method: 'GET', url: '/api/agent/portfolio', headers: bearer(k.key) })).json();
    // a 10 % gap down: the price move is −200 on 100 of margin (liquidation sits ~4.5 % below entry)
    t.clock.advance(10_000);
    t.market.set('1', price * 0.9, t.clock.now());
    const positions = (await t.app.inject({ method: 'GET', url: '/api/agent/positions/futures', headers: bearer(k.key) })).json();
    expect(positions.positions[0]).toMatchObject({ status: 'open', atLiquidation: true, unrealizedPnlMusd: -100 });
    const after = (await t.app.inject({ method: 'GET', url: '/api/agent/portfolio', headers: bearer(k.key) })).json();
    expect(after.equity.totalUsd).toBeCloseTo(before.equity.totalUsd - 100, 6);
    await snapshotEquity(t.ctx.database, t.market, t.clock.now());
    expect(await snapshotOf(k.keyId, new Date(t.clock.now()).toISOString().slice(0, 10))).toBeCloseTo(after.equity.totalUsd, 7);
  });
});
