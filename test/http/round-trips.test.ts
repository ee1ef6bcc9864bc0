import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepFuturesRisk } from '../../src/services/futures/risk-sweep.js';
import { matchRestingOrders } from '../../src/workers/spot-matching.js';
import { bearer } from '../support/app.js';
import { countingDatabase, type QueryCounter } from '../support/counting-db.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { pmMarkets } from '../../src/storage/schema.js';

/**
 * Database round trips per request (issue 11): a trade write reads once and writes once
 * (≤ 3 with any BEGIN/COMMIT and its ledger row, stored before the answer), an account read
 * costs ≤ 2 (its ledger row goes in a later batch). Counted on a warm key (its auth lookup
 * cached) through a database that observes every statement it is sent.
 */
const WRITE_BUDGET = 3;
const READ_BUDGET = 2;

let t: PmTestApp;
let counter: QueryCounter;
let key: string;
let seq = 0;
const ik = () => `rt-${(seq += 1)}`;

beforeAll(async () => {
  const counting = await countingDatabase();
  counter = counting.counter;
  t = await createPmApp({ testDb: counting.testDb, config: { agentRpm: 1_000_000, tradeWpm: 1_000_000, ledgerFlushMs: 60_000 } });
  t.market.set('1', 50_000, t.clock.now());
  t.market.set('1027', 3_000, t.clock.now());
  ({ key } = await t.newKey());
  await t.app.inject({ method: 'GET', url: '/api/agent/me', headers: bearer(key) }); // warm the key cache and the book
}, 180_000);
afterAll(async () => {
  await t.close();
  await counter.measure(async () => undefined);
  await t.testDb.drop();
});

interface Cost {
  count: number;
  statements: string[];
  ledgerInserts: number;
  status: number;
  body: any;
}

async function cost(method: 'GET' | 'POST', url: string, payload?: object): Promise<Cost> {
  let res!: Awaited<ReturnType<typeof t.app.inject>>;
  const measured = await counter.measure(async () => {
    res = await t.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });
  });
  console.info(`round trips ${method} ${url}: ${measured.count} + ledger ${measured.ledgerInserts}`);
  return { ...measured, status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
}

function withinBudget(measured: Cost, budget: number, status = 200): void {
  expect(measured.status, JSON.stringify(measured.body)).toBe(status);
  if (budget === WRITE_BUDGET) expect(measured.ledgerInserts, 'a write answers once its ledger row is stored').toBe(1);
  expect(measured.count + (budget === WRITE_BUDGET ? measured.ledgerInserts : 0), measured.statements.join('\n')).toBeLessThanOrEqual(budget);
}

describe('trade writes: ≤ 3 round trips', () => {
  it('spot market buy and sell, limit (resting and marketable), stop-limit, cancel, idempotent replay', async () => {
    const order = (body: object) => cost('POST', '/api/agent/spot/order', { coinId: '1', idempotencyKey: ik(), ...body });
    withinBudget(await order({ side: 'buy', orderType: 'market', quantity: 0.1 }), WRITE_BUDGET);
    withinBudget(await order({ side: 'sell', orderType: 'market', quantity: 0.05 }), WRITE_BUDGET);
    const resting = await order({ side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 40_000 });
    withinBudget(resting, WRITE_BUDGET);
    withinBudget(await order({ side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 60_000 }), WRITE_BUDGET);
    withinBudget(await order({ side: 'sell', orderType: 'stop', quantity: 0.01, stopPrice: 45_000, limitPrice: 44_000 }), WRITE_BUDGET);
    withinBudget(await cost('POST', `/api/agent/spot/order/${resting.body.restingOrderId}/cancel`), WRITE_BUDGET);
    const refused = await order({ side: 'buy', orderType: 'market', quantity: 100 });
    withinBudget(refused, WRITE_BUDGET, 400);
    const body = { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: ik() };
    await cost('POST', '/api/agent/spot/order', body);
    const replay = await cost('POST', '/api/agent/spot/order', body);
    withinBudget(replay, WRITE_BUDGET);
    expect(replay.body.idempotentReplay).toBe(true);
  });

  it('futures open, add, SL-TP, partial and full close', async () => {
    const open = await cost('POST', '/api/agent/futures/open', { coinId: '1027', side: 'long', leverage: 5, marginMusd: 100, idempotencyKey: ik() });
    withinBudget(open, WRITE_BUDGET, 201);
    const positionId = open.body.position.id;
    withinBudget(await cost('POST', '/api/agent/futures/open', { coinId: '1027', side: 'long', leverage: 5, marginMusd: 50, idempotencyKey: ik() }), WRITE_BUDGET);
    withinBudget(await cost('POST', '/api/agent/futures/sl-tp', { positionId, stopLossPrice: 2_900, takeProfitPrice: 3_300 }), WRITE_BUDGET);
    withinBudget(await cost('POST', '/api/agent/futures/close', { positionId, fraction: 0.5, idempotencyKey: ik() }), WRITE_BUDGET);
    withinBudget(await cost('POST', '/api/agent/futures/close', { positionId, idempotencyKey: ik() }), WRITE_BUDGET);
  });

  it('PM open', async () => {
    const rows = await t.ctx.database.db.select().from(pmMarkets);
    const m = rows.find((r) => (r.source === 'polymarket' || r.source === 'kalshi') && r.kind === 'binary' && r.status === 'open' && !r.resolutionState
      && (r.outcomes as { probability: number }[])[0]!.probability > 10 && (r.outcomes as { probability: number }[])[0]!.probability < 90)!;
    const outcome = (m.outcomes as { externalMarketId: string }[])[0]!.externalMarketId;
    const res = await cost('POST', '/api/agent/pm/open', { source: m.source, slug: m.slug, outcomeExternalMarketId: outcome, stakeMusd: 100, idempotencyKey: ik() });
    withinBudget(res, WRITE_BUDGET, 201);
    // the market comes with the book read: one read, one write
    expect(res.count, res.statements.join('\n')).toBe(2);
  });

  it('the resting-order matcher: one read and one write per fill, plus the scan', async () => {
    await cost('POST', '/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 49_000, idempotencyKey: ik() });
    t.clock.advance(10_000);
    t.market.set('1', 48_000, t.clock.now());
    let filled = 0;
    const measured = await counter.measure(async () => {
      filled = (await matchRestingOrders(t.ctx.database, t.market, t.clock.now())).filled;
    });
    expect(filled).toBeGreaterThanOrEqual(1);
    // a scan of the resting orders, 2 per fill, one advance of the rest
    expect(measured.count, measured.statements.join('\n')).toBeLessThanOrEqual(2 + 2 * filled);
  });

  it('concurrent orders of one key from this process: each still reads once and writes once (none retries under a lock)', async () => {
    const { key: k } = await t.newKey();
    await t.app.inject({ method: 'GET', url: '/api/agent/me', headers: bearer(k) });
    const n = 12;
    let statuses: number[] = [];
    const measured = await counter.measure(async () => {
      const answers = await Promise.all(
        Array.from({ length: n }, () =>
          t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(k), payload: { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: ik() } }),
        ),
      );
      statuses = answers.map((a) => a.statusCode);
    });
    expect(statuses).toEqual(Array(n).fill(200));
    // run together, all but the first would find the book changed and decide again in a transaction
    expect(measured.statements.filter((s) => /^begin/i.test(s)), measured.statements.join('\n')).toEqual([]);
    expect(measured.count).toBe(2 * n);
  });

  it('the futures risk job: a few statements per batch, not per position', async () => {
    t.market.set('1027', 3_000, t.clock.now());
    for (let i = 0; i < 3; i += 1) {
      const { key: k } = await t.newKey();
      await t.app.inject({ method: 'POST', url: '/api/agent/futures/open', headers: bearer(k), payload: { coinId: '1027', side: 'long', leverage: 10, marginMusd: 100, idempotencyKey: ik() } });
    }
    t.clock.advance(10_000);
    t.market.set('1027', 2_000, t.clock.now());
    let settled = 0;
    const measured = await counter.measure(async () => {
      settled = (await sweepFuturesRisk(t.ctx.database.db, t.market, t.clock.now())).liquidation;
    });
    expect(settled).toBeGreaterThanOrEqual(3);
    console.info(`round trips risk sweep (${settled} settled): ${measured.count}`);
    expect(measured.count, measured.statements.join('\n')).toBeLessThanOrEqual(RISK_SWEEP_CURRENT);
  });
});

/** The risk sweep settles in batches: a handful of statements per batch, whatever its size. */
const RISK_SWEEP_CURRENT = 12; // measured: 2 scans + one 10-statement transaction per batch of up to 250

/** Account reads are set-based (issue 11 item 2): one book read with its parts, whatever the history. */
const READS: [string, number][] = [
  ['/api/agent/me', READ_BUDGET],
  ['/api/agent/portfolio', READ_BUDGET],
  ['/api/agent/wallet', READ_BUDGET],
  ['/api/agent/positions/futures', READ_BUDGET],
  ['/api/agent/positions/pm', READ_BUDGET],
  ['/api/agent/orders/open', READ_BUDGET],
  ['/api/agent/trades', READ_BUDGET],
  ['/api/agent/equity-curve', READ_BUDGET],
  ['/api/agent/equity-curve?granularity=realized', READ_BUDGET],
  ['/api/agent/performance', READ_BUDGET],
];

describe('account reads: ≤ 2 round trips', () => {
  it.each(READS)('%s', async (url, budget) => {
    const measured = await cost('GET', url);
    withinBudget(measured, budget);
  });
});
