import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { loadConfig, ConfigError } from '../../src/config/env.js';
import { HOUSE_STEP_ASIDE_LIVE_AGENTS } from '../../src/arena/house/board-rule.js';
import type { HouseFuturesOrder, HouseOrder } from '../../src/arena/house/types.js';
import { checkBooks } from '../../src/services/doctor.js';
import { ensureDemoKey } from '../../src/services/demo-key.js';
import {
  ensureHouseAgents,
  executeHouseFuturesOrders,
  executeHouseOrders,
  loadHouseFuturesBook,
  HOUSE_STEP_MS,
  HOUSE_USER_ID,
  houseMarketView,
  runHouseAgents,
} from '../../src/services/house-agents.js';
import type { RunningSimMarket } from '../../src/services/sim-market-boot.js';
import { queryRows } from '../../src/storage/db.js';
import { listKeys } from '../../src/storage/keys-repo.js';
import { ManualClock } from '../../src/util/clock.js';
import { buildJobs } from '../../src/workers/jobs.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { agentKey, trades } from '../support/arena.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { startSmallMarket } from '../support/small-market.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const DAY = 86_400_000;

interface TradeCount {
  keyId: number;
  trades: number;
  decided: number;
}

async function tradeCounts(testDb: TestDatabase): Promise<TradeCount[]> {
  return queryRows<TradeCount>(
    testDb.database.db,
    sql`select key_id as "keyId", count(*)::int as trades, count(realized_pnl)::int as decided from closed_trades group by key_id order by key_id`,
  );
}
const totalTrades = (counts: TradeCount[]) => counts.reduce((s, c) => s + c.trades, 0);

describe('house (demo) agents on a simulated market', () => {
  let testDb: TestDatabase;
  let sim: RunningSimMarket;
  let t: TestApp;
  let lastTick = NOW;

  beforeAll(async () => {
    testDb = await freshDatabase();
    sim = await startSmallMarket(testDb.database.db, NOW);
    t = await createTestApp({ testDb, clock: new ManualClock(NOW), marketReads: sim.market });
  });
  afterAll(async () => {
    await t.close();
    await testDb.drop();
  });

  it('are created once per database, even by concurrent starts, as public keys of the reserved user', async () => {
    const db = testDb.database.db;
    await Promise.all([ensureHouseAgents(db), ensureHouseAgents(db), ensureHouseAgents(db)]);
    const agents = await ensureHouseAgents(db);
    expect(agents.map((a) => a.strategy)).toEqual(['futures-trend', 'mean-reversion', 'momentum', 'pm-forecaster']);
    const keys = await listKeys(db, HOUSE_USER_ID);
    expect(keys).toHaveLength(4);
    for (const key of keys) {
      expect(key.isPublic).toBe(true);
      const venue = { 'futures-trend-house': 'futures', 'pm-forecaster-house': 'pm' }[key.agentName as string] ?? 'spot';
      expect(key.scopes).toEqual(['read', `trade:${venue}`]);
    }
    expect(keys.map((k) => k.agentName).sort()).toEqual(['futures-trend-house', 'mean-reversion-house', 'momentum-house', 'pm-forecaster-house']);
    // House keys do not count as "a database with keys": the first start still prints a demo key.
    expect(await ensureDemoKey(db)).not.toBeNull();
  });

  it('trade through the spot engine every step, producing decided trades and balanced books', async () => {
    const job = buildJobs({ database: testDb.database, market: sim.market, marketReads: sim.market }).find((j) => j.name === 'house-agents');
    expect(job?.intervalMs).toBe(HOUSE_STEP_MS);
    for (let i = 0; i < 20; i += 1) {
      lastTick = NOW + i * HOUSE_STEP_MS;
      sim.market.advanceTo(lastTick);
      await job!.run(lastTick);
    }

    const agents = await ensureHouseAgents(testDb.database.db);
    const counts = await tradeCounts(testDb);
    const house = counts.filter((c) => agents.some((a) => a.keyId === c.keyId));
    expect(house.length).toBeGreaterThanOrEqual(1);
    expect(house.reduce((s, c) => s + c.decided, 0)).toBeGreaterThanOrEqual(1);
    // The futures agent opened and closed a mock-futures position through the futures engine.
    const futures = agents.find((a) => a.strategy === 'futures-trend')!;
    const closed = await queryRows<{ venue: string }>(testDb.database.db, sql`select venue from closed_trades where key_id = ${futures.keyId} and realized_pnl is not null`);
    expect(closed.map((c) => c.venue)).toContain('futures');
    // Real spot fills: fee and execution model recorded like any HTTP order.
    const [fill] = await queryRows<{ venue: string; refType: string; fee: string; version: string }>(
      testDb.database.db,
      sql`select venue, ref_type as "refType", detail->>'feeMusd' as fee, detail->>'executionVersion' as version from closed_trades limit 1`,
    );
    expect(fill).toMatchObject({ venue: 'spot', refType: 'spot_fill', version: 'paper_execution_v1' });
    expect(Number(fill!.fee)).toBeGreaterThan(0);
    expect((await checkBooks(testDb.database.db)).ok).toBe(true);
  });

  it('a retried step never trades twice', async () => {
    const db = testDb.database.db;
    const before = await tradeCounts(testDb);
    // The same run again (after a crash or a leadership change): every agent already did this tick.
    await runHouseAgents({ database: testDb.database, reads: sim.market }, lastTick);
    expect(await tradeCounts(testDb)).toEqual(before);

    // A crash between an order and the step's completion: the same orders replay by their key.
    const agent = (await ensureHouseAgents(db)).find((a) => a.strategy === 'momentum');
    const coinId = houseMarketView(sim.market, lastTick)[0]!.coinId;
    const orders: HouseOrder[] = [{ coinId, side: 'buy', quantity: 0.01, reason: 'test' }];
    const tick = Math.floor(lastTick / HOUSE_STEP_MS) + 1;
    const first = await executeHouseOrders(db, sim.market, agent!.keyId, tick, orders, lastTick);
    const again = await executeHouseOrders(db, sim.market, agent!.keyId, tick, orders, lastTick);
    expect(first.map((o) => o.status)).toEqual(['filled']);
    expect(again.map((o) => o.status)).toEqual(['replayed']);
    // The book moved in between and the step now wants another size: the tick's key refuses it.
    const resized = await executeHouseOrders(db, sim.market, agent!.keyId, tick, [{ ...orders[0]!, quantity: 0.02 }], lastTick);
    expect(resized).toEqual([{ order: { ...orders[0]!, quantity: 0.02 }, status: 'refused', reason: 'idempotency_key_conflict' }]);
    expect(totalTrades(await tradeCounts(testDb))).toBe(totalTrades(before) + 1);

    // Futures the same way: an open replays by its tick key; with FUTURES_OPEN_ENABLED=false it is refused.
    const futures = (await ensureHouseAgents(db)).find((a) => a.strategy === 'futures-trend')!;
    const held = new Set((await loadHouseFuturesBook(db, futures.keyId)).positions.map((p) => p.coinId));
    const view = houseMarketView(sim.market, lastTick).find((c) => !held.has(c.coinId))!;
    const open: HouseFuturesOrder = {
      kind: 'open',
      coinId: view.coinId,
      side: 'long',
      leverage: 2,
      marginMusd: 100,
      stopLossPrice: Number((view.priceUsd * 0.97).toPrecision(6)),
      takeProfitPrice: Number((view.priceUsd * 1.05).toPrecision(6)),
      reason: 'test',
    };
    const disabled = await executeHouseFuturesOrders(db, sim.market, futures.keyId, tick, [open], lastTick, false);
    expect(disabled.map((o) => [o.status, o.reason])).toEqual([['refused', 'feature_disabled']]);
    const opened = await executeHouseFuturesOrders(db, sim.market, futures.keyId, tick, [open], lastTick);
    const reopened = await executeHouseFuturesOrders(db, sim.market, futures.keyId, tick, [open], lastTick);
    expect([opened[0]!.status, reopened[0]!.status]).toEqual(['filled', 'replayed']);
    const positions = (await loadHouseFuturesBook(db, futures.keyId)).positions.filter((p) => p.coinId === view.coinId);
    expect(positions).toHaveLength(1);
    const close: HouseFuturesOrder = { kind: 'close', positionId: positions[0]!.positionId, coinId: view.coinId, reason: 'test' };
    const closed = await executeHouseFuturesOrders(db, sim.market, futures.keyId, tick, [close], lastTick);
    const reclosed = await executeHouseFuturesOrders(db, sim.market, futures.keyId, tick, [close], lastTick);
    expect([closed[0]!.status, reclosed[0]!.status]).toEqual(['filled', 'replayed']);
    expect((await checkBooks(db)).ok).toBe(true);
    expect((await checkBooks(db)).ok).toBe(true);
  });

  it('appear on GET /api/arena as demo rows (the board is demo while only they are listed), ignoring windowing', async () => {
    const agents = await ensureHouseAgents(testDb.database.db);
    t.clock.set(lastTick + 2 * DAY); // nothing traded "today" any more
    const board = (await t.app.inject({ url: '/api/arena' })).json();
    expect(board.source).toBe('demo');
    expect(board.total).toBe(4);
    for (const row of board.rows) {
      expect(row.source).toBe('demo');
      expect(row.rankDelta).toBeNull();
      expect(row.handle).toMatch(/^a\d+-(momentum|mean-reversion|futures-trend|pm-forecaster)-house$/);
    }
    const handles = agents.map((a) => `a${a.keyId}-${a.strategy}-house`).sort();
    expect(board.rows.map((r: { handle: string }) => r.handle).sort()).toEqual(handles);
    const today = (await t.app.inject({ url: '/api/arena?window=today' })).json();
    expect(today.source).toBe('demo');
    const allTime = new Map(board.rows.map((r: { handle: string; tradeCount: number; realizedPnlMusd: number }) => [r.handle, [r.tradeCount, r.realizedPnlMusd]]));
    for (const row of today.rows) {
      expect([row.tradeCount, row.realizedPnlMusd]).toEqual(allTime.get(row.handle));
    }
    expect(today.rows.some((r: { tradeCount: number }) => r.tradeCount > 0)).toBe(true);
    const profile = await t.app.inject({ url: `/api/arena/${handles[0]}` });
    expect(profile.statusCode).toBe(200);
    expect(profile.json().agent.source).toBe('demo');
    t.clock.set(NOW);
  });

  it('HOUSE_AGENTS=off: no job, and existing house rows are hidden', async () => {
    const off = await createTestApp({ testDb, config: { houseAgents: false }, clock: new ManualClock(NOW) });
    try {
      const board = (await off.app.inject({ url: '/api/arena' })).json();
      expect(board).toMatchObject({ total: 0, rows: [], source: 'live' });
      const [agent] = await ensureHouseAgents(testDb.database.db);
      expect((await off.app.inject({ url: `/api/arena/a${agent!.keyId}-${agent!.strategy}-house` })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
    const jobs = buildJobs({ database: testDb.database, market: sim.market, marketReads: sim.market, houseAgents: false });
    expect(jobs.map((j) => j.name)).not.toContain('house-agents');
    expect(loadConfig({}).houseAgents).toBe(true);
    expect(loadConfig({ HOUSE_AGENTS: 'off' }).houseAgents).toBe(false);
    expect(() => loadConfig({ HOUSE_AGENTS: 'maybe' })).toThrow(ConfigError);
  });
});

describe('house agents step aside once live agents qualify', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it(`rank after live rows of the same qualification, and no house row listed once ${HOUSE_STEP_ASIDE_LIVE_AGENTS} live agents have 5 decided trades`, async () => {
    const db = t.testDb.database.db;
    const now = t.clock.now();
    const house = await ensureHouseAgents(db);
    // House results from last week, far better than any live agent's.
    for (const a of house) await trades(db, a.keyId, 'spot', [900, 800, 700, 600, 500, 400], now - 7 * DAY);
    const board = async () => (await t.app.inject({ url: '/api/arena' })).json();

    const live = [await agentKey(db, 'Live One')];
    await trades(db, live[0]!, 'spot', [10, -5], now - 1000);
    let b = await board();
    expect(b.source).toBe('live');
    // below 5 decided trades the live agent sorts after every qualified agent, house ones included (contract §3)
    expect(b.rows.map((r: { source: string }) => r.source)).toEqual(['demo', 'demo', 'demo', 'demo', 'live']);
    expect(b.rows[4].rank).toBe(5);
    // once qualified it ranks above every house row, whatever their PnL
    await trades(db, live[0]!, 'spot', [1, 1, 1], now - 1000);
    b = await board();
    expect(b.rows.map((r: { source: string }) => r.source)).toEqual(['live', 'demo', 'demo', 'demo', 'demo']);
    expect(b.rows[0].rank).toBe(1);

    live.push(await agentKey(db, 'Live Two'), await agentKey(db, 'Live Three'));
    for (const id of live.slice(0, 2)) await trades(db, id, 'spot', [10, 10, 10, 10, 10], now - 1000);
    b = await board();
    expect(b.total).toBe(7); // two qualified live agents: the house stays
    await trades(db, live[2]!, 'spot', [1, 1, 1, 1], now - 1000);
    expect((await board()).total).toBe(7); // four decided trades are not enough
    await trades(db, live[2]!, 'spot', [1], now - 1000);
    b = await board();
    expect(b).toMatchObject({ total: 3, source: 'live' });
    expect(b.rows.every((r: { source: string }) => r.source === 'live')).toBe(true);
    // stepped aside, still public agents: their profiles answer (404 is for unknown or non-public agents, contract §7),
    // ranked after every listed row, as their scorecards and dataset rows still are
    const h = house[0]!;
    const profile = await t.app.inject({ url: `/api/arena/a${h.keyId}-${h.strategy}-house` });
    expect(profile.statusCode).toBe(200);
    expect(profile.json().agent).toMatchObject({ source: 'demo', handle: `a${h.keyId}-${h.strategy}-house` });
    expect(profile.json().agent.rank).toBeGreaterThan(3);
  });
});
