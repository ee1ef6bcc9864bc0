import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futuresEquityAdjustment } from '../../src/services/futures-equity.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { sweepFuturesRisk } from '../../src/services/futures/risk-sweep.js';
import { buildJobs } from '../../src/workers/jobs.js';
import type { Job } from '../../src/workers/scheduler.js';
import { createTestApp, bearer, type TestApp } from '../support/app.js';
import { futuresHelpers } from '../support/futures.js';

let t: TestApp;
let riskJob: Job;

beforeAll(async () => {
  t = await createTestApp({ config: { agentRpm: 100_000, tradeWpm: 100_000 } });
  riskJob = buildJobs({ database: t.ctx.database, market: t.market, clock: t.clock }).find((j) => j.name === 'futures-risk')!;
}, 180_000); // building the apps (fresh databases, every migration) is slow on a busy machine
afterAll(async () => {
  await t.close();
});

/** Moves the test clock a minute on, sets every given price at that instant, runs the risk job. */
async function minute(prices: Record<string, number>): Promise<void> {
  t.clock.advance(60_000);
  for (const [coinId, price] of Object.entries(prices)) t.market.set(coinId, price, t.clock.now());
  await riskJob.run(t.clock.now());
}

const { post, open, journalBalances } = futuresHelpers(() => t);
const positionsOf = async (key: string, query = '') =>
  (await t.app.inject({ method: 'GET', url: `/api/agent/positions/futures${query}`, headers: bearer(key) })).json();

const tradesOf = (keyId: number) =>
  queryRows<{ realized_pnl: string; closed_at: Date; detail: { exitReason: string; exitPrice: number } }>(
    t.ctx.database.db,
    sql`select realized_pnl, closed_at, detail from closed_trades where key_id = ${keyId} and venue = 'futures' order by id`,
  );

describe('futures risk job along a price path', () => {
  it('liquidates one position and takes profit on another; the journal balances after each', async () => {
    t.market.set('1', 50_000, t.clock.now());
    t.market.set('1027', 2_000, t.clock.now());
    const { key, keyId } = await t.newKey();
    const long = await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 1000, stopLossPrice: 46_000 });
    const short = await open(key, { coinId: '1027', side: 'short', leverage: 5, marginMusd: 400, takeProfitPrice: 1_800 });
    expect(long.liquidationPrice).toBe(45_250);
    await journalBalances();

    // minute 1: both move against/for a little; nothing fires
    await minute({ '1': 47_000, '1027': 1_950 });
    expect((await positionsOf(key)).positions.every((p: { status: string }) => p.status === 'open')).toBe(true);
    await journalBalances();

    // minute 2: BTC gaps through both the stop (46,000) and liquidation (45,250): liquidation wins
    const before = (await positionsOf(key)).asOf;
    await minute({ '1': 45_000, '1027': 1_900 });
    const afterLiq = await positionsOf(key, `?updatedSince=${encodeURIComponent(before)}`);
    expect(afterLiq.positions).toHaveLength(1);
    expect(afterLiq.positions[0]).toMatchObject({
      id: long.id,
      status: 'liquidated',
      exitReason: 'liquidation',
      exitPrice: 45_000,
      realizedPnlMusd: -1005,
      closedAt: new Date(t.clock.now()).toISOString(),
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    let wallet = (await findWallet(t.ctx.database.db, keyId))!;
    expect(wallet.frozenFutures.toNumber()).toBe(400);
    await journalBalances();

    // minute 3: ETH falls through the take-profit (1,800): closed at the observed mark, fee charged
    await minute({ '1': 45_000, '1027': 1_790 });
    const tp = (await positionsOf(key)).positions.find((p: { id: number }) => p.id === short.id);
    // short 1 ETH from 2000 at 1790: +210, close fee 1790 × 5 bps = 0.895, open fee 1
    expect(tp).toMatchObject({ status: 'closed', exitReason: 'take_profit', exitPrice: 1_790, realizedPnlMusd: 208.105 });
    wallet = (await findWallet(t.ctx.database.db, keyId))!;
    expect(wallet.frozenFutures.toNumber()).toBe(0);
    expect(wallet.available.toNumber()).toBeCloseTo(50_000 - 1005 + 208.105, 8);
    await journalBalances();

    const trades = await tradesOf(keyId);
    expect(trades.map((tr) => [Number(tr.realized_pnl), tr.detail.exitReason, tr.detail.exitPrice])).toEqual([
      [-1005, 'liquidation', 45_000],
      [208.105, 'take_profit', 1_790],
    ]);

    // a further minute changes nothing (the job is idempotent)
    await minute({ '1': 40_000, '1027': 1_500 });
    expect(await tradesOf(keyId)).toHaveLength(2);
  });

  it('fires a stop-loss at the observed mark (worse than the trigger after a gap)', async () => {
    t.market.set('5426', 100, t.clock.now());
    const { key, keyId } = await t.newKey();
    const p = await open(key, { coinId: '5426', side: 'long', leverage: 2, marginMusd: 100, stopLossPrice: 95 });
    await minute({ '5426': 93 });
    const row = (await positionsOf(key)).positions.find((x: { id: number }) => x.id === p.id);
    // 2 SOL: price PnL −14, close fee 186 × 5 bps = 0.093, open fee 0.1
    expect(row).toMatchObject({ status: 'closed', exitReason: 'stop_loss', exitPrice: 93, realizedPnlMusd: -14.193 });
    expect((await tradesOf(keyId)).map((tr) => Number(tr.realized_pnl))).toEqual([-14.193]);
    await journalBalances();
  });

  it('does nothing on a stale mark, even through the liquidation price', async () => {
    t.market.set('5426', 100, t.clock.now());
    const { key } = await t.newKey();
    const p = await open(key, { coinId: '5426', side: 'short', leverage: 20, marginMusd: 50 });
    // the latest price is through the liquidation price (104.5) but 299 s old
    t.market.set('5426', 200, t.clock.now() + 1000);
    t.clock.advance(300_000);
    await riskJob.run(t.clock.now());
    const row = (await positionsOf(key)).positions.find((x: { id: number }) => x.id === p.id);
    expect(row.status).toBe('open');
    expect(row.markPrice).toBeNull();
    // the fresh price returns: liquidated on the next minute
    await minute({ '5426': 200 });
    expect((await positionsOf(key)).positions.find((x: { id: number }) => x.id === p.id).status).toBe('liquidated');
    await journalBalances();
  });
});

describe('the sweep in batches', () => {
  it('settles many keys and coins over several batches: each position once, by its own trigger', async () => {
    t.market.set('1', 50_000, t.clock.now());
    t.market.set('1027', 2_000, t.clock.now());
    t.market.set('5426', 100, t.clock.now());
    const ids = { liquidation: [] as number[], stop_loss: [] as number[], take_profit: [] as number[], none: [] as number[] };
    for (let i = 0; i < 6; i += 1) {
      const { key } = await t.newKey();
      // BTC long 10x → liquidated at 45,000; ETH short with TP 1,900 → take-profit at 1,850;
      // SOL long with SL 95 → stop-loss at 94 for even keys, no trigger for odd ones
      ids.liquidation.push((await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 100 })).id);
      ids.take_profit.push((await open(key, { coinId: '1027', side: 'short', leverage: 3, marginMusd: 60, takeProfitPrice: 1_900 })).id);
      const sol = await open(key, { coinId: '5426', side: 'long', leverage: 2, marginMusd: 40, ...(i % 2 === 0 ? { stopLossPrice: 95 } : {}) });
      (i % 2 === 0 ? ids.stop_loss : ids.none).push(sol.id);
    }
    t.clock.advance(60_000);
    t.market.set('1', 45_000, t.clock.now());
    t.market.set('1027', 1_850, t.clock.now());
    t.market.set('5426', 94, t.clock.now());
    const result = await sweepFuturesRisk(t.ctx.database.db, t.market, t.clock.now(), 4);
    expect(result).toMatchObject({ candidates: 15, liquidation: 6, stop_loss: 3, take_profit: 6, batchesDeferred: 0 });
    const rows = await queryRows<{ id: number; status: string; exit_reason: string | null }>(
      t.ctx.database.db,
      sql`select id::int as id, status, exit_reason from futures_positions`,
    );
    const reasonOf = new Map(rows.map((r) => [r.id, r.exit_reason]));
    for (const reason of ['liquidation', 'stop_loss', 'take_profit'] as const) {
      for (const id of ids[reason]) expect(reasonOf.get(id)).toBe(reason);
    }
    for (const id of ids.none) expect(reasonOf.get(id)).toBeNull();
    const trades = await queryRows<{ n: number }>(
      t.ctx.database.db,
      sql`select count(*)::int as n from closed_trades where ref_type = 'futures_position' and ref_id in (select id::text from futures_positions where status <> 'open' and closed_at = ${new Date(t.clock.now())})`,
    );
    expect(trades[0]!.n).toBe(15);
    const events = await queryRows<{ type: string; n: number }>(
      t.ctx.database.db,
      sql`select type, count(*)::int as n from futures_events where created_at = ${new Date(t.clock.now())} group by type order by type`,
    );
    expect(events).toEqual([
      { type: 'liquidation', n: 6 },
      { type: 'stop_loss', n: 3 },
      { type: 'take_profit', n: 6 },
    ]);
    await journalBalances();
    expect((await sweepFuturesRisk(t.ctx.database.db, t.market, t.clock.now(), 4)).candidates).toBe(0);
  });

  it('stamps each batch when it settles, not at the sweep start (a long sweep stays inside the polling grace)', async () => {
    t.market.set('1', 50_000, t.clock.now());
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { key } = await t.newKey();
      ids.push((await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 100 })).id);
    }
    t.clock.advance(60_000);
    t.market.set('1', 45_000, t.clock.now());
    const sweepStart = t.clock.now();
    const laterEachBatch = () => {
      t.clock.advance(7_000);
      return t.clock.now();
    };
    expect((await sweepFuturesRisk(t.ctx.database.db, t.market, sweepStart, 1, laterEachBatch)).liquidation).toBe(3);
    const rows = await queryRows<{ closed: string; updated: string }>(
      t.ctx.database.db,
      sql`select (extract(epoch from closed_at) * 1000)::bigint::text as closed, (extract(epoch from updated_at) * 1000)::bigint::text as updated
          from futures_positions where id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`,
    );
    const closed = rows.map((r) => Number(r.closed));
    expect(closed.every((v) => v > sweepStart)).toBe(true);
    expect(rows.every((r) => r.updated === r.closed)).toBe(true);
    expect(new Set(closed).size).toBe(3); // one stamp per batch of one
    const trades = await queryRows<{ n: number }>(
      t.ctx.database.db,
      sql`select count(*)::int as n from closed_trades where ref_type = 'futures_position'
          and ref_id in (${sql.join(ids.map((id) => sql`${String(id)}`), sql`, `)}) and closed_at > ${new Date(sweepStart)}`,
    );
    expect(trades[0]!.n).toBe(3);
    await journalBalances();
  });
});

describe('futuresEquityAdjustment', () => {
  it('sums the unrealized PnL of open positions at the mark (margin is already cash)', async () => {
    t.market.set('1', 50_000, t.clock.now());
    t.market.set('1027', 2_000, t.clock.now());
    const { key, keyId } = await t.newKey();
    expect((await futuresEquityAdjustment(t.ctx.database.db, keyId, t.market, t.clock.now())).toNumber()).toBe(0);
    await open(key, { coinId: '1', side: 'long', leverage: 10, marginMusd: 1000 });
    await open(key, { coinId: '1027', side: 'short', leverage: 2, marginMusd: 500 });
    t.market.set('1', 51_000, t.clock.now());
    t.market.set('1027', 2_100, t.clock.now());
    // long 0.2 BTC: +200; short 0.5 ETH: −50
    expect((await futuresEquityAdjustment(t.ctx.database.db, keyId, t.market, t.clock.now())).toNumber()).toBe(150);
  });
});
