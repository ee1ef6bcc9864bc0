import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import {
  QUALIFICATION_DECIDED_TRADES,
  LISTING_MIN_DECIDED_TRADES,
  SMALL_SAMPLE_BELOW_DECIDED_TRADES,
  RANKING_VERSION,
  wilsonLowerBound,
} from '../../src/arena/ranking.js';
import { takeRankSnapshots } from '../../src/services/arena-jobs.js';
import { BOARD_SETTLE_MS } from '../../src/services/arena-board.js';
import { updateKey, revokeKey } from '../../src/storage/keys-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { agentKey, trade, trades } from '../support/arena.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('Arena leaderboard and profiles', { timeout: 120_000 }, () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
  const handles = (rows: { handle: string }[]) => rows.map((r) => r.handle);

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    const now = t.clock.now();
    ids = {
      alpha: await agentKey(db, 'Alpha', { model: 'gpt-x' }),
      bravo: await agentKey(db, 'Bravo'),
      charlie: await agentKey(db, 'Charlie'),
      delta: await agentKey(db, 'Delta'),
      idle: await agentKey(db, 'Idle'),
      hidden: await agentKey(db, 'Hidden', { public: false }),
    };
    // alpha: 9 wins / 2 losses, net +1000, ten days ago; a spot buy (undecided) today.
    await trades(db, ids.alpha!, 'spot', [200, 200, 200, 100, 100, 100, 100, 100], now - 10 * DAY);
    await trades(db, ids.alpha!, 'futures', [-100, -100], now - 10 * DAY);
    await trade(db, ids.alpha!, 'pm', 100, now - 10 * DAY);
    await trade(db, ids.alpha!, 'spot', null, now - HOUR);
    // bravo: 5 wins, +500, today.
    await trades(db, ids.bravo!, 'pm', [100, 100, 100, 100, 100], now - 2 * HOUR);
    // charlie: 3 wins, +5000 but unqualified.
    await trades(db, ids.charlie!, 'futures', [2000, 2000, 1000], now - 2 * HOUR);
    // delta: 6 decided, net -200, yesterday.
    await trades(db, ids.delta!, 'spot', [-100, -100, -100, 50, 25, 25], now - DAY - HOUR);
    await trades(db, ids.hidden!, 'spot', [9000, 9000, 9000, 9000, 9000], now - HOUR);
  }, 300_000);
  afterAll(() => t?.close(), 120_000);

  it('ranks qualified agents by PnL x Wilson lower bound, then the rest; private keys never appear', async () => {
    const { status, body, headers } = await get('/api/arena');
    expect(status).toBe(200);
    expect(headers['cache-control']).toMatch(/max-age/);
    expect(body).toMatchObject({ page: 1, pageSize: 12, total: 5, minDecidedTrades: 0, window: '3m', source: 'live' });
    // alpha: 1000 x Wilson(9, 11) 0.5230139 = 523.01; bravo: 500 x 0.5655085 = 282.75 (hand-computed Wilson bounds).
    expect(handles(body.rows)).toEqual([
      `a${ids.alpha}-alpha`,
      `a${ids.bravo}-bravo`,
      `a${ids.delta}-delta`,
      `a${ids.charlie}-charlie`,
      `a${ids.idle}-idle`,
    ]);
    const [alpha, bravo, delta, charlie, idle] = body.rows;
    expect(alpha.rankScore).toBeCloseTo(523.01386242, 6);
    expect(bravo.rankScore).toBeCloseTo(282.75425262, 6);
    expect(delta.rankScore).toBe(-200);
    expect(charlie.rankScore).toBeCloseTo(5000 * 0.43849392, 3);
    expect(charlie.qualified).toBe(false);
    expect(alpha).toMatchObject({
      rank: 1,
      realizedPnlMusd: 1000,
      tradeCount: 12,
      decidedTradeCount: 11,
      winCount: 9,
      lossCount: 2,
      model: 'gpt-x',
      source: 'live',
      biggestWinMusd: 200,
      rankDelta: null,
    });
    // the venue record counts trades with a realized PnL, as /api/agent/performance does: not the buy
    expect(alpha.byVenue.spot).toMatchObject({ realizedPnlMusd: 1100, tradeCount: 8, winCount: 8, lossCount: 0 });
    expect(alpha.byVenue.futures).toMatchObject({ realizedPnlMusd: -200, lossCount: 2, winRate: 0 });
    expect(alpha.badges).toEqual(expect.arrayContaining(['veteran_10', 'sharpshooter', 'triple_venue', 'active_24h']));
    expect(charlie.badges).toContain('big_win');
    expect(idle).toMatchObject({ realizedPnlMusd: 0, tradeCount: 0, winRate: null, lastTradeAt: null, sparkline: [] });
    // All-time sparkline: 44 daily points ending at the realized PnL.
    expect(alpha.sparkline).toHaveLength(44);
    expect(alpha.sparkline.at(-1)).toBe(1000);
    expect(alpha.sparkline[0]).toBe(0);
  });

  it('serves the contract record from the ranking constants, and the ranking obeys it', async () => {
    const { body } = await get('/api/arena?pageSize=1');
    expect(body.contract.version).toBe(RANKING_VERSION);
    expect(body.contract.ranking).toEqual({
      listingMinimumDecidedTrades: LISTING_MIN_DECIDED_TRADES,
      qualificationDecidedTrades: QUALIFICATION_DECIDED_TRADES,
      positiveScore: 'wilson_95_lower_bound_x_realized_pnl',
      nonPositiveScore: 'realized_pnl',
      unrealizedPnlAffectsRank: false,
    });
    expect(body.contract.presentation.smallSampleBelowDecidedTrades).toBe(SMALL_SAMPLE_BELOW_DECIDED_TRADES);
    expect(body.contract.capital.independentWalletSince).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(body.minDecidedTrades).toBe(body.contract.ranking.listingMinimumDecidedTrades);
    // Behaviour agrees: bravo has exactly the qualification count and ranks above charlie's larger PnL.
    const all = (await get('/api/arena?pageSize=50')).body.rows;
    const q = body.contract.ranking.qualificationDecidedTrades;
    for (const row of all) expect(row.qualified).toBe(row.decidedTradeCount >= q);
    expect(wilsonLowerBound(8, 10)).toBeCloseTo(0.49015685, 7);
  });

  it('pages and validates its parameters', async () => {
    const second = await get('/api/arena?page=2&pageSize=2');
    expect(handles(second.body.rows)).toEqual([`a${ids.delta}-delta`, `a${ids.charlie}-charlie`]);
    expect(second.body.rows[0].rank).toBe(3);
    expect((await get('/api/arena?page=100')).body.rows).toEqual([]);
    for (const bad of ['page=0', 'page=101', 'pageSize=51', 'pageSize=0', 'window=1y', 'page=x']) {
      const res = await get(`/api/arena?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.field).toMatch(/^query/);
    }
  });

  it('scopes PnL, counts, byVenue and sparkline to the window; badges and biggest win stay all-time', async () => {
    const today = (await get('/api/arena?window=today&pageSize=50')).body;
    expect(today.window).toBe('today');
    const byHandle = Object.fromEntries(today.rows.map((r: { handle: string }) => [r.handle, r]));
    const alpha = byHandle[`a${ids.alpha}-alpha`];
    expect(alpha).toMatchObject({ realizedPnlMusd: 0, tradeCount: 1, decidedTradeCount: 0, winRate: null, biggestWinMusd: 200 });
    expect(alpha.badges).toContain('veteran_10');
    expect(alpha.sparkline).toEqual([]);
    const bravo = byHandle[`a${ids.bravo}-bravo`];
    expect(bravo).toMatchObject({ rank: 1, realizedPnlMusd: 500, decidedTradeCount: 5 });
    expect(bravo.sparkline).toEqual([0, 500]);
    // delta traded yesterday: the rolling 24 h board still sees the last hour of it? No: 25 h ago.
    const rolling = (await get('/api/arena?window=24h&pageSize=50')).body.rows;
    expect(rolling.find((r: { handle: string }) => r.handle.endsWith('delta')).realizedPnlMusd).toBe(0);
    const week = (await get('/api/arena?window=7d&pageSize=50')).body.rows;
    const deltaWeek = week.find((r: { handle: string }) => r.handle.endsWith('delta'));
    expect(deltaWeek).toMatchObject({ realizedPnlMusd: -200, decidedTradeCount: 6 });
    expect(deltaWeek.sparkline).toHaveLength(8);
    expect(deltaWeek.sparkline[0]).toBe(0);
    expect(deltaWeek.sparkline.at(-1)).toBe(-200);
    expect(week.find((r: { handle: string }) => r.handle.endsWith('alpha')).realizedPnlMusd).toBe(0);
    // Qualification is all-time (contract §4.2 rule 2): alpha, qualified but idle this window, ranks
    // on its 0-PnL row above delta's loss, and charlie (3 decided ever) follows every qualified agent.
    const weekAlpha = week.find((r: { handle: string }) => r.handle.endsWith('alpha'));
    expect(weekAlpha).toMatchObject({ decidedTradeCount: 0, qualified: true });
    expect(handles(week)).toEqual([`a${ids.bravo}-bravo`, `a${ids.alpha}-alpha`, `a${ids.delta}-delta`, `a${ids.charlie}-charlie`, `a${ids.idle}-idle`]);
    const rollingOrder = handles(rolling);
    expect(rollingOrder.indexOf(`a${ids.delta}-delta`)).toBeLessThan(rollingOrder.indexOf(`a${ids.charlie}-charlie`));
    // No trade is older than 90 days, so 3m and all serve the same board.
    const threeM = (await get('/api/arena?window=3m&pageSize=50')).body.rows;
    const all = (await get('/api/arena?window=all&pageSize=50')).body.rows;
    expect(threeM).toEqual(all);
  });

  it('3m becomes a true 90-day window once trades are older than that', async () => {
    const db = t.testDb.database.db;
    const old = await agentKey(db, 'Old Timer');
    await trades(db, old, 'spot', [100, 100, 100, 100, 100, 100], t.clock.now() - 120 * DAY);
    const threeM = (await get('/api/arena?window=3m&pageSize=50')).body.rows;
    const all = (await get('/api/arena?window=all&pageSize=50')).body.rows;
    expect(threeM.find((r: { handle: string }) => r.handle === `a${old}-old-timer`).realizedPnlMusd).toBe(0);
    expect(all.find((r: { handle: string }) => r.handle === `a${old}-old-timer`).realizedPnlMusd).toBe(600);
    // 3m is not a windowed board (supplement §3.10): 44 daily points at most, ending at the row's PnL
    for (const row of threeM.filter((r: { sparkline: number[] }) => r.sparkline.length > 0)) {
      expect(row.sparkline.length, row.handle).toBeLessThanOrEqual(44);
      expect(row.sparkline.at(-1), row.handle).toBe(row.realizedPnlMusd);
    }
    // the profile stays the all-time row (rank, PnL, counts) whatever the default board's window
    const profile = (await get(`/api/arena/a${old}-old-timer`)).body.agent;
    const allRow = all.find((r: { handle: string }) => r.handle === `a${old}-old-timer`);
    expect(profile).toMatchObject({ rank: allRow.rank, realizedPnlMusd: 600, decidedTradeCount: 6, winRate: 1 });
    await updateKey(db, old, { isPublic: false });
  });

  it('rankDelta compares with the window snapshot taken at least 6 hours earlier', async () => {
    const db = t.testDb.database.db;
    await takeRankSnapshots(t.testDb.database, t.clock.now());
    expect((await get('/api/arena')).body.rows[0].rankDelta).toBeNull();
    t.clock.advance(5 * HOUR);
    await trades(db, ids.delta!, 'pm', [5000, 5000], t.clock.now());
    expect((await get('/api/arena')).body.rows.every((r: { rankDelta: null }) => r.rankDelta === null)).toBe(true);
    t.clock.advance(HOUR + 1000);
    const rows = (await get('/api/arena')).body.rows;
    expect(rows[0]).toMatchObject({ handle: `a${ids.delta}-delta`, rank: 1, rankDelta: 2 });
    expect(rows[1]).toMatchObject({ handle: `a${ids.alpha}-alpha`, rankDelta: -1 });
    // After three days without snapshots (an outage), the first new one keeps the old series
    // (kept 7 days, supplement §3.11): rankDelta still compares with it, not null for 6 hours.
    t.clock.advance(3 * DAY);
    await takeRankSnapshots(t.testDb.database, t.clock.now());
    expect((await get('/api/arena')).body.rows[0]).toMatchObject({ handle: `a${ids.delta}-delta`, rankDelta: 2 });
  });

  it('profiles public agents and 404s unknown, private, malformed, stale or revoked handles', async () => {
    const ok = await get(`/api/arena/a${ids.bravo}-bravo`);
    expect(ok.status).toBe(200);
    expect(ok.body.agent).toMatchObject({ handle: `a${ids.bravo}-bravo`, agentName: 'Bravo', decidedTradeCount: 5 });
    expect(ok.body.minDecidedTrades).toBe(0);
    expect(ok.body.contract.version).toBe(RANKING_VERSION);
    for (const h of [`a${ids.hidden}-hidden`, 'a999-nobody', `a${ids.bravo}-wrong`, 'zzz', `a0${ids.bravo}-bravo`]) {
      const res = await get(`/api/arena/${h}`);
      expect(res.status, h).toBe(404);
      expect(res.body.error).toBe('agent_not_found');
    }
    expect((await get(`/api/arena/${'a'.repeat(65)}`)).status).toBe(400);
  });

  it('unpublishing or revoking removes an agent from every board at once', async () => {
    const db = t.testDb.database.db;
    await updateKey(db, ids.charlie!, { isPublic: false });
    await revokeKey(db, ids.idle!, new Date(t.clock.now()));
    const body = (await get('/api/arena?pageSize=50')).body;
    expect(handles(body.rows)).not.toContain(`a${ids.charlie}-charlie`);
    expect(handles(body.rows)).not.toContain(`a${ids.idle}-idle`);
    expect((await get(`/api/arena/a${ids.charlie}-charlie`)).status).toBe(404);
    await updateKey(db, ids.charlie!, { isPublic: true });
    expect(handles((await get('/api/arena?pageSize=50')).body.rows)).toContain(`a${ids.charlie}-charlie`);
  });

  it('shows a trade whose lower id committed after the newest one, once the board settles (max(id) did not move: the board kept it out until the next trade)', async () => {
    const db = t.testDb.database.db;
    const late = await agentKey(db, 'Late');
    const seq = sql`pg_get_serial_sequence('closed_trades', 'id')`;
    const [row] = await queryRows<{ top: string }>(db, sql`select coalesce(max(id), 0)::text as top from closed_trades`);
    const top = row!.top;
    const pnlOf = async () => {
      const rows = (await get('/api/arena?window=all&pageSize=50')).body.rows as { handle: string; realizedPnlMusd: number }[];
      return rows.find((r) => r.handle === `a${late}-late`)?.realizedPnlMusd;
    };
    try {
      // the first writer took id top + 1 and is still committing; the second took top + 11 and committed
      await queryRows(db, sql`select setval(${seq}, ${Number(top) + 10})`);
      await trade(db, late, 'spot', 100, t.clock.now());
      expect(await pnlOf()).toBe(100);
      await queryRows(db, sql`select setval(${seq}, ${Number(top)})`);
      await trade(db, late, 'spot', 50, t.clock.now()); // the first writer's commit lands now, below max(id)
      t.clock.advance(BOARD_SETTLE_MS);
      expect(await pnlOf()).toBe(150);
    } finally {
      await queryRows(db, sql`select setval(${seq}, (select max(id) from closed_trades))`);
    }
  });

  it('keeps the aggregates equal to a full recomputation from the trade log, also under concurrent writers', async () => {
    const db = t.testDb.database.db;
    const busy = [await agentKey(db, 'Busy One'), await agentKey(db, 'Busy Two')];
    await Promise.all(Array.from({ length: 40 }, (_, i) => trade(db, busy[i % 2]!, i % 3 === 0 ? 'pm' : 'spot', (i % 5) - 2, t.clock.now())));
    const fromLog = await queryRows<Record<string, unknown>>(
      db,
      sql`select key_id, venue, coalesce(sum(realized_pnl), 0)::numeric::text as pnl, count(*)::int as n,
            count(*) filter (where realized_pnl > 0)::int as w, count(*) filter (where realized_pnl < 0)::int as l
          from closed_trades group by 1, 2 order by 1, 2`,
    );
    const folded = await queryRows<Record<string, unknown>>(
      db,
      sql`select key_id, venue, realized_pnl::text as pnl, trade_count as n, win_count as w, loss_count as l
          from arena_agent_totals order by 1, 2`,
    );
    const norm = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, pnl: Number(r.pnl) }));
    expect(norm(folded)).toEqual(norm(fromLog));
    const [days] = await queryRows<{ pnl: string }>(db, sql`select sum(realized_pnl)::text as pnl from arena_agent_days`);
    const [log] = await queryRows<{ pnl: string }>(db, sql`select sum(realized_pnl)::text as pnl from closed_trades`);
    expect(Number(days!.pnl)).toBe(Number(log!.pnl));
  });
});
