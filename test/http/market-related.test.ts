import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relatedMarketsForCoin } from '../../src/pm/api.js';
import { bearer } from '../support/app.js';
import { freshDatabase } from '../support/db.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { startSmallMarket } from '../support/small-market.js';
import { ManualClock } from '../../src/util/clock.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
let t: PmTestApp;
beforeAll(async () => {
  const testDb = await freshDatabase();
  const sim = await startSmallMarket(testDb.database.db, NOW);
  t = await createPmApp({ testDb, clock: new ManualClock(NOW), marketReads: sim.market });
}, 120_000);
afterAll(async () => {
  await t.close();
  await t.testDb.drop();
});

describe('market context relatedMarkets', () => {
  it('lists up to 3 open prediction markets about the coin, probability as a 0..1 fraction', async () => {
    const { key } = await t.newKey(['read']);
    const body = (await t.app.inject({ url: '/api/agent/market/1', headers: bearer(key) })).json();
    expect(body.relatedMarkets.length).toBeGreaterThan(0);
    expect(body.relatedMarkets.length).toBeLessThanOrEqual(3);
    for (const m of body.relatedMarkets) {
      expect(m.probability).toBeGreaterThan(0);
      expect(m.probability).toBeLessThan(1);
      expect(m).toHaveProperty('decisionSupport');
      expect(typeof m.source).toBe('string');
    }
    expect(body.relatedMarkets).toEqual(await relatedMarketsForCoin(t.ctx.database, t.ctx.clock, '1'));
    const usdt = (await t.app.inject({ url: '/api/agent/market/825', headers: bearer(key) })).json();
    expect(usdt.relatedMarkets).toEqual([]);
  });
});
