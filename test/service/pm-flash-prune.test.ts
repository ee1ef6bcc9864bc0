import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlePmPositions } from '../../src/services/pm-trading-settlement.js';
import { pmMarkets } from '../../src/storage/schema.js';
import { bearer } from '../support/app.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';

let t: PmTestApp;
beforeAll(async () => {
  t = await createPmApp({ config: { agentRpm: 100_000, tradeWpm: 100_000 } });
}, 120_000);
afterAll(async () => t?.close());

describe('settled flash markets pruned by the fast profile', () => {
  it('stay while paper positions on them are open, so settlement still pays them', async () => {
    const rows = await t.ctx.database.db.select().from(pmMarkets);
    const flash = rows.filter((r) => r.kind === 'binary' && r.status === 'open' && r.resolutionState === null && /-f\d+$/.test(r.marketId)).slice(0, 3);
    expect(flash.length).toBeGreaterThan(0);
    const { key } = await t.newKey(['read', 'trade:pm']);
    let opened = 0;
    for (const m of flash) {
      const outcome = (m.outcomes as { externalMarketId: string }[])[0]!.externalMarketId;
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/agent/pm/open',
        headers: bearer(key),
        payload: { source: m.source, slug: m.slug, outcomeExternalMarketId: outcome, stakeMusd: 10, idempotencyKey: `flash-${m.slug}` },
      });
      if (r.statusCode === 201) opened += 1;
    }
    expect(opened).toBeGreaterThan(0);
    // the markets resolve within the hour; the settlement job is then behind for a day while
    // ingest (and its hourly prune of flash markets settled a day ago) runs on
    for (let i = 0; i < 12; i += 1) {
      t.clock.advance(5 * 60_000);
      await t.ingest.run(t.clock.now());
    }
    t.clock.advance(25 * 3_600_000);
    await t.ingest.run(t.clock.now());
    expect(await settlePmPositions(t.ctx.database, t.clock.now())).toBe(opened);
    const positions = (await t.app.inject({ url: '/api/agent/positions/pm', headers: bearer(key) })).json().positions;
    expect(positions.filter((p: { status: string }) => p.status === 'open')).toEqual([]);
    const wallet = (await t.app.inject({ url: '/api/agent/wallet', headers: bearer(key) })).json();
    expect(wallet.usdt.frozenPm).toBe(0);
    // once paid, the next hourly prune takes the markets away
    t.clock.advance(3_600_000);
    await t.ingest.run(t.clock.now());
    const left = (await t.ctx.database.db.select().from(pmMarkets)).filter((r) => flash.some((f) => f.source === r.source && f.slug === r.slug));
    expect(left).toEqual([]);
  });
});
