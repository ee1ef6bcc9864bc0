import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { forcePmResolution } from '../../src/pm/api.js';
import { ORDER_ROUTE } from '../../src/http/routes/agent/spot.js';
import { readFundedBook } from '../../src/services/equity.js';
import { ensureWallet, placeSpotOrder } from '../../src/services/spot-trading.js';
import { holdingsPart, readBook } from '../../src/storage/book-read-repo.js';
import { sweepFuturesRisk } from '../../src/services/futures/risk-sweep.js';
import { settlePmPositions } from '../../src/services/pm-trading-settlement.js';
import { updateKey } from '../../src/storage/keys-repo.js';
import { pmMarkets } from '../../src/storage/schema.js';
import { snapshotEquity } from '../../src/workers/equity-snapshots.js';
import { matchRestingOrders } from '../../src/workers/spot-matching.js';
import { bearer } from '../support/app.js';
import { freshDatabase } from '../support/db.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';

/**
 * The book cache (src/storage/book-cache.ts) never answers stale: after every kind of write —
 * whatever code path makes it (routes, jobs) — each account read answers exactly what a read
 * straight from the database answers at that moment (the cache cleared), and it does serve
 * repeated reads from memory.
 */
let t: PmTestApp;
let key: string;
let seq = 0;
const ik = () => `bc-${(seq += 1)}`;

const READS = [
  '/api/agent/portfolio',
  '/api/agent/wallet',
  '/api/agent/wallet?coinId=1',
  '/api/agent/wallet?coinId=1027',
  '/api/agent/trades',
  '/api/agent/trades?venue=futures&limit=5',
  '/api/agent/equity-curve',
  '/api/agent/equity-curve?granularity=realized',
  '/api/agent/positions/futures',
];
/** blocked (opposite_side_open) while a long 1027 position is open */
const QUOTE = { coinId: '1027', side: 'short', leverage: 5, marginMusd: 100 };

beforeAll(async () => {
  const testDb = await freshDatabase({ bookCache: true });
  t = await createPmApp({ testDb, config: { agentRpm: 1_000_000, tradeWpm: 1_000_000 } });
  t.market.set('1', 50_000, t.clock.now());
  t.market.set('1027', 3_000, t.clock.now());
  ({ key } = await t.newKey());
}, 180_000);
afterAll(async () => {
  await t?.close();
  await t?.testDb.drop();
});

const cache = () => t.ctx.database.bookCache!;

async function readAll(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const url of READS) {
    const res = await t.app.inject({ method: 'GET', url, headers: bearer(key) });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    out[url] = JSON.parse(res.body);
  }
  const quote = await t.app.inject({ method: 'POST', url: '/api/agent/futures/quote', headers: bearer(key), payload: QUOTE });
  expect(quote.statusCode, quote.body).toBe(200);
  out.quote = JSON.parse(quote.body);
  return out;
}

/** Reads through the cache, then straight from the database: the same answers. Returns them. */
async function expectFresh(): Promise<Record<string, unknown>> {
  const cached = await readAll();
  cache().clear();
  const direct = await readAll();
  expect(cached).toEqual(direct);
  return direct;
}

async function write(url: string, payload?: object, status = 200): Promise<any> {
  const res = await t.app.inject({ method: 'POST', url, headers: bearer(key), ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBe(status);
  return JSON.parse(res.body);
}

/** Warms the cache, runs the write, and checks every read afterwards against the database. */
async function afterWrite(work: () => Promise<unknown>, changes: string[]): Promise<void> {
  const before = await expectFresh();
  await readAll(); // every read now cached
  await work();
  const after = await expectFresh();
  for (const url of changes) expect(after[url], `${url} should change`).not.toEqual(before[url]);
}

describe('book cache', () => {
  it('serves repeated reads from memory (no round trip)', async () => {
    await readAll();
    const hits = cache().hits;
    await readAll();
    expect(cache().hits - hits).toBeGreaterThanOrEqual(READS.length);
  });

  it('caches "no book yet" too, until the first write creates the book', async () => {
    const { key: fresh } = await t.newKey();
    const quote = () => t.app.inject({ method: 'POST', url: '/api/agent/futures/quote', headers: bearer(fresh), payload: QUOTE }).then((r) => r.json());
    expect(await quote()).toMatchObject({ eligible: true, blockReasons: [] });
    const hits = cache().hits;
    expect(await quote()).toMatchObject({ eligible: true, blockReasons: [] });
    expect(cache().hits - hits).toBe(1);
    const open = { coinId: '1027', side: 'long', leverage: 5, marginMusd: 100, idempotencyKey: ik() };
    const opened = await t.app.inject({ method: 'POST', url: '/api/agent/futures/open', headers: bearer(fresh), payload: open });
    expect(opened.statusCode, opened.body).toBe(201);
    expect(await quote()).toMatchObject({ eligible: false, blockReasons: ['opposite_side_open'] });
  });

  it('a first read answers the book another request created, though its change signal has not arrived yet', async () => {
    const { keyId } = await t.newKey();
    const db = t.ctx.database.db;
    const read = () => readBook(db, keyId, { holdings: holdingsPart });
    expect(await read()).toBeNull(); // "no book yet", cached
    // another request creates the book; its signal comes later (PostgreSQL: on that request's connection)
    const signals = [vi.spyOn(cache(), 'changed').mockImplementation(() => undefined), vi.spyOn(cache(), 'hold').mockImplementation(() => undefined), vi.spyOn(cache(), 'release').mockImplementation(() => undefined)];
    try {
      await ensureWallet(db, keyId);
    } finally {
      for (const s of signals) s.mockRestore();
    }
    const funded = await readFundedBook(db, keyId, read);
    expect(funded.wallet.available.toNumber()).toBe(50_000);
  });

  it('spot market buy and sell', async () => {
    await afterWrite(() => write('/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.1, idempotencyKey: ik() }), [
      '/api/agent/portfolio',
      '/api/agent/wallet?coinId=1',
    ]);
    await afterWrite(() => write('/api/agent/spot/order', { coinId: '1', side: 'sell', orderType: 'market', quantity: 0.05, idempotencyKey: ik() }), [
      '/api/agent/wallet?coinId=1',
      '/api/agent/trades',
    ]);
  });

  it('a trade write signals its key once, though it changes several of its rows (migration 0018)', async () => {
    const keyId = (await t.app.inject({ method: 'GET', url: '/api/agent/me', headers: bearer(key) }).then((r) => JSON.parse(r.body))).keyId as number;
    await readAll(); // the book exists (a first read creates and funds it: a change of its own)
    // No ledger batch (its totals are book rows too) in flight meanwhile: a request's row is queued
    // as its response ends; the settle time lets every earlier signal arrive first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await t.ctx.ledger.flush();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // PostgreSQL signals with NOTICE (hold, which also counts as a change), PGlite with NOTIFY (changed)
    const entry = t.ctx.database.kind === 'pglite' ? 'changed' : 'hold';
    const signals: string[] = [];
    const original = cache()[entry];
    cache()[entry] = (payload: string) => (signals.push(payload), original.call(cache(), payload));
    try {
      // wallet, holding, trade-log row and its running totals all change
      const coin = t.ctx.market.coin('1')!;
      const order = { coinId: '1', side: 'buy' as const, orderType: 'market' as const, quantity: 0.01, idempotencyKey: ik() };
      await placeSpotOrder(t.ctx.database.db, { market: t.ctx.market, nowMs: t.clock.now() }, keyId, coin, order, ORDER_ROUTE);
    } finally {
      cache()[entry] = original;
    }
    expect(signals).toEqual([String(keyId)]);
  });

  it('resting limit order placed, cancelled, and filled by the matcher job', async () => {
    const placed = await (async () => {
      let body: any;
      await afterWrite(async () => {
        body = await write('/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 40_000, idempotencyKey: ik() });
      }, ['/api/agent/portfolio', '/api/agent/wallet']);
      return body;
    })();
    await afterWrite(() => write(`/api/agent/spot/order/${placed.restingOrderId}/cancel`), ['/api/agent/portfolio', '/api/agent/wallet']);
    await afterWrite(() => write('/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 49_000, idempotencyKey: ik() }), [
      '/api/agent/portfolio',
    ]);
    await afterWrite(async () => {
      t.clock.advance(10_000);
      t.market.set('1', 48_000, t.clock.now());
      expect((await matchRestingOrders(t.ctx.database, t.market, t.clock.now())).filled).toBeGreaterThanOrEqual(1);
    }, ['/api/agent/portfolio', '/api/agent/wallet?coinId=1']);
  });

  it('futures open, add, SL/TP, partial close, close', async () => {
    let positionId = 0;
    await afterWrite(async () => {
      positionId = (await write('/api/agent/futures/open', { coinId: '1027', side: 'long', leverage: 5, marginMusd: 100, idempotencyKey: ik() }, 201)).position.id;
    }, ['/api/agent/positions/futures', '/api/agent/wallet', 'quote']);
    await afterWrite(() => write('/api/agent/futures/open', { coinId: '1027', side: 'long', leverage: 5, marginMusd: 50, idempotencyKey: ik() }), [
      '/api/agent/positions/futures',
    ]);
    await afterWrite(() => write('/api/agent/futures/sl-tp', { positionId, stopLossPrice: 2_500, takeProfitPrice: 3_600 }), ['/api/agent/positions/futures']);
    await afterWrite(() => write('/api/agent/futures/close', { positionId, fraction: 0.5, idempotencyKey: ik() }), [
      '/api/agent/positions/futures',
      '/api/agent/trades?venue=futures&limit=5',
    ]);
    await afterWrite(() => write('/api/agent/futures/close', { positionId, idempotencyKey: ik() }), ['/api/agent/positions/futures', 'quote']);
  });

  it('futures liquidation by the risk job', async () => {
    t.market.set('1', 50_000, t.clock.now());
    await write('/api/agent/futures/open', { coinId: '1', side: 'long', leverage: 10, marginMusd: 100, idempotencyKey: ik() }, 201);
    await afterWrite(async () => {
      t.clock.advance(10_000);
      t.market.set('1', 40_000, t.clock.now());
      expect((await sweepFuturesRisk(t.ctx.database.db, t.market, t.clock.now())).liquidation).toBeGreaterThanOrEqual(1);
    }, ['/api/agent/positions/futures', '/api/agent/trades?venue=futures&limit=5']);
    t.market.set('1', 50_000, t.clock.now());
  });

  it('PM open, a price move (never cached), and settlement by the job', async () => {
    const rows = await t.ctx.database.db.select().from(pmMarkets);
    const m = rows.find((r) => (r.source === 'polymarket' || r.source === 'kalshi') && r.kind === 'binary' && r.status === 'open' && !r.resolutionState
      && (r.outcomes as { probability: number }[])[0]!.probability > 10 && (r.outcomes as { probability: number }[])[0]!.probability < 90)!;
    const outcome = (m.outcomes as { externalMarketId: string }[])[0]!.externalMarketId;
    await afterWrite(() => write('/api/agent/pm/open', { source: m.source, slug: m.slug, outcomeExternalMarketId: outcome, stakeMusd: 100, idempotencyKey: ik() }, 201), [
      '/api/agent/portfolio',
      '/api/agent/wallet',
    ]);
    // the market moves: pm_markets is no book table, so the portfolio must price it per request
    await afterWrite(async () => {
      const now = (await t.ctx.database.db.select().from(pmMarkets).where(and(eq(pmMarkets.source, m.source), eq(pmMarkets.slug, m.slug))))[0]!;
      const outcomes = (now.outcomes as { externalMarketId: string; probability: number }[]).map((o) =>
        o.externalMarketId === outcome ? { ...o, probability: o.probability > 50 ? o.probability - 7 : o.probability + 7 } : o,
      );
      await t.ctx.database.db.update(pmMarkets).set({ outcomes }).where(and(eq(pmMarkets.source, m.source), eq(pmMarkets.slug, m.slug)));
    }, ['/api/agent/portfolio']);
    await afterWrite(async () => {
      expect(await forcePmResolution(t.ctx.database, t.clock, { source: m.source, slug: m.slug, winnerExternalMarketId: outcome })).toBe(true);
      expect(await settlePmPositions(t.ctx.database, t.clock.now())).toBeGreaterThanOrEqual(1);
    }, ['/api/agent/portfolio', '/api/agent/wallet', '/api/agent/trades']);
  });

  it('the equity snapshot job (a set-wide write)', async () => {
    // a snapshot a minute before the portfolio's 24h window starts (windows start on the minute):
    // that window's start, and a point of the curve
    await afterWrite(() => snapshotEquity(t.ctx.database, t.market, t.clock.now() - 86_400_000 - 60_000), ['/api/agent/portfolio', '/api/agent/equity-curve']);
  });

  it('the arena board fingerprint: kept in memory (PGlite) until a trade or a public identity changes (migration 0019)', async () => {
    const board = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/arena?pageSize=50' });
      expect(res.statusCode, res.body).toBe(200);
      return JSON.parse(res.body) as { total: number; rows: { handle: string; agentName: string | null; tradeCount: number }[] };
    };
    /** The board served now, then the one built from a fingerprint read afresh: the same. */
    const fresh = async () => {
      const served = await board();
      cache().clear();
      expect(served).toEqual(await board());
      return served;
    };
    const { key: publicKey, keyId } = await t.newKey(undefined, { public: true, agentName: 'board-cache' });
    const mine = (b: Awaited<ReturnType<typeof board>>) => b.rows.find((r) => r.agentName === 'board-cache' || r.agentName === 'renamed');
    const before = await fresh();
    expect(mine(before)?.tradeCount).toBe(0);
    const hits = cache().sharedHits;
    expect(await board()).toEqual(before);
    // in memory on PGlite only (src/services/arena-board.ts, fingerprintInMemory); PostgreSQL reads it
    if (t.ctx.database.kind === 'pglite') expect(cache().sharedHits).toBeGreaterThan(hits);
    else expect(cache().sharedHits).toBe(hits);

    const buy = { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: ik() };
    const res = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(publicKey), payload: buy });
    expect(res.statusCode, res.body).toBe(200);
    expect(mine(await fresh())?.tradeCount).toBe(1);

    await updateKey(t.ctx.database.db, keyId, { agentName: 'renamed' });
    expect(mine(await fresh())?.agentName).toBe('renamed');
    await t.newKey(undefined, { public: true, agentName: 'board-cache-2' });
    expect((await fresh()).total).toBe(before.total + 1);
  });

  it('reads racing writes never leave a stale copy', async () => {
    t.market.set('1', 50_000, t.clock.now());
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i += 1) {
      jobs.push(t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { coinId: '1', side: i % 2 ? 'sell' : 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: ik() } }));
      for (const url of READS) jobs.push(t.app.inject({ method: 'GET', url, headers: bearer(key) }));
    }
    await Promise.all(jobs);
    await expectFresh();
  });
});
