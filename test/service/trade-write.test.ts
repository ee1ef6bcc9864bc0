import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { checkBooks } from '../../src/services/doctor.js';
import { and, eq, sql } from 'drizzle-orm';
import { findWallet } from '../../src/storage/books-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { loadPmMarket } from '../../src/storage/pm-repo.js';
import { pmMarkets } from '../../src/storage/schema.js';
import { readBook, writeTrade, type IdempotencyClaim } from '../../src/storage/trade-write-repo.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';

/**
 * The guarded single-statement write (paper_trade_write): it applies a decision only while
 * every row the decision read is unchanged, and claims the idempotency key once.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { agentRpm: 100_000, tradeWpm: 100_000 } });
  t.market.set('1', 50_000, t.clock.now());
});
afterAll(async () => t.close());

const move = (amount: number) => ({ cash: [{ bucket: 'available' as const, amount: new Decimal(amount), reason: 'test_move' }, { bucket: 'frozen' as const, amount: new Decimal(-amount), reason: 'test_move' }] });
const claim = (idempotencyKey: string): IdempotencyClaim => ({ idempotencyKey, route: 'test', requestHash: 'h', statusCode: 200, response: { ok: 1 }, idPaths: [] });

describe('paper_trade_write', () => {
  it('answers stale and writes nothing when the book changed after the read; applies on a fresh read', async () => {
    const { key, keyId } = await t.newKey();
    const db = t.ctx.database.db;
    const before = await readBook(db, { keyId, coinId: '1' });
    const res = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: 'w1' } });
    expect(res.statusCode).toBe(200);
    const afterOrder = (await findWallet(db, keyId))!;
    const freeze = { cash: [{ bucket: 'available' as const, amount: new Decimal(-10), reason: 'test_freeze' }, { bucket: 'frozen' as const, amount: new Decimal(10), reason: 'test_freeze' }] };
    expect(await writeTrade(db, { snapshot: before, effects: freeze })).toMatchObject({ outcome: 'stale', row: 'wallet' });
    expect((await findWallet(db, keyId))!.available.eq(afterOrder.available)).toBe(true);
    // the holding changed too: a snapshot read before the buy is stale on it as well
    const fresh = await readBook(db, { keyId, coinId: '1' });
    expect(await writeTrade(db, { snapshot: fresh, effects: freeze })).toMatchObject({ outcome: 'applied' });
    expect((await findWallet(db, keyId))!.frozen.toNumber()).toBe(10);
    expect(await writeTrade(db, { snapshot: fresh, effects: move(10) })).toMatchObject({ outcome: 'stale' });
    expect(await writeTrade(db, { snapshot: await readBook(db, { keyId }), effects: move(10) })).toMatchObject({ outcome: 'applied' });
    expect(await checkBooks(db)).toMatchObject({ ok: true });
  });

  it('claims an idempotency key once: a second write with the same key answers the stored record and moves nothing', async () => {
    const { keyId } = await t.newKey();
    const db = t.ctx.database.db;
    const first = await readBook(db, { keyId, idempotencyKey: 'same' });
    expect(first.idempotency).toBeNull();
    expect(await writeTrade(db, { snapshot: first, effects: move(0), idempotency: claim('same') })).toMatchObject({ outcome: 'applied' });
    const again = await writeTrade(db, { snapshot: await readBook(db, { keyId }), effects: { cash: [{ bucket: 'available', amount: new Decimal(-5), reason: 'x' }, { bucket: 'frozen', amount: new Decimal(5), reason: 'x' }] }, idempotency: claim('same') });
    expect(again).toEqual({ outcome: 'exists', record: { route: 'test', requestHash: 'h', statusCode: 200, response: { ok: 1 } } });
    expect((await findWallet(db, keyId))!.frozen.toNumber()).toBe(0);
    expect((await readBook(db, { keyId, idempotencyKey: 'same' })).idempotency).toMatchObject({ statusCode: 200 });
  });

  it('signals its own key once and quiets the row signals of its own writes only (a later change in the transaction signals again)', async () => {
    const { keyId } = await t.newKey();
    const other = await t.newKey();
    const db = t.ctx.database.db;
    await readBook(db, { keyId: other.keyId }); // the other book exists (a first read funds it)
    const snapshot = await readBook(db, { keyId });
    const seen = await db.transaction(async (tx) => {
      const setting = async () =>
        (await queryRows<{ mode: string | null; last: string | null }>(tx, sql`select current_setting('paper.book_signal', true) as mode, current_setting('paper.book_signalled', true) as last`))[0]!;
      await queryRows(tx, sql`select set_config('paper.book_signal', 'notify', true), set_config('paper.book_signalled', '', true)`);
      expect(await writeTrade(tx, { snapshot, effects: move(0), idempotency: claim('signal') })).toMatchObject({ outcome: 'applied' });
      const afterWrite = await setting();
      await queryRows(tx, sql`update wallets set cash_available = cash_available where key_id = ${other.keyId}`);
      return { afterWrite, afterOtherChange: await setting() };
    });
    expect(seen.afterWrite).toEqual({ mode: 'notify', last: String(keyId) });
    expect(seen.afterOtherChange).toEqual({ mode: 'notify', last: String(other.keyId) });
  });

  it('writes its idempotency record once, finished (one insert with its answer, no update)', async () => {
    const { keyId } = await t.newKey();
    const db = t.ctx.database.db;
    const snapshot = await readBook(db, { keyId });
    const counts = await db.transaction(async (tx) => {
      // this transaction's row counts (pending, so taken before and after)
      const count = async () =>
        (await queryRows<{ ins: number; upd: number }>(tx, sql`select n_tup_ins::int as ins, n_tup_upd::int as upd from pg_stat_xact_user_tables where relname = 'idempotency_records'`))[0] ?? { ins: 0, upd: 0 };
      const before = await count();
      expect(await writeTrade(tx, { snapshot, effects: move(0), idempotency: claim('once') })).toMatchObject({ outcome: 'applied' });
      const after = await count();
      return { ins: after.ins - before.ins, upd: after.upd - before.upd };
    });
    expect(counts).toEqual({ ins: 1, upd: 0 });
    expect((await readBook(db, { keyId, idempotencyKey: 'once' })).idempotency).toMatchObject({ statusCode: 200, response: { ok: 1 } });
  });

  it('inserts every column of the rows it writes by name (a column added to the table must be added to the function)', async () => {
    const [fn] = await queryRows<{ def: string }>(t.ctx.database.db, sql`select pg_get_functiondef('paper_trade_write'::regproc) as def`);
    for (const table of ['pm_positions', 'arena_decisions']) {
      const columns = await queryRows<{ name: string }>(
        t.ctx.database.db,
        // resolved_seq and recorded_seq are drawn by triggers (migrations 0026, 0027), never inserted.
        sql`select column_name as name from information_schema.columns where table_schema = 'public' and table_name = ${table} and column_name not in ('id', 'resolved_seq', 'recorded_seq')`,
      );
      const statement = new RegExp(`INSERT INTO ${table} \\(([^)]*)\\)\\s*SELECT ([^]*?)\\s*FROM jsonb_populate_record\\(null::${table}`).exec(fn!.def);
      const listed = statement?.[1]?.split(',').map((c) => c.trim());
      const selected = statement?.[2]?.split(',').map((c) => c.trim().replace(/^r\./, ''));
      expect([...(listed ?? [])].sort(), table).toEqual(columns.map((c) => c.name).sort());
      expect(selected, `${table}: the SELECT list in the INSERT's column order`).toEqual(listed);
    }
  });
});

describe('paper_book_read', () => {
  it('reads a PM market with the book (and alone), as a select of the row maps it (dates, JSON, numbers, nulls); null when there is none', async () => {
    const { keyId } = await t.newKey();
    const db = t.ctx.database.db;
    const at = new Date(t.clock.now() - 61_234);
    await db.insert(pmMarkets).values({
      source: 'polymarket', slug: 'book-read-market', marketId: 'm-1', title: 'Will it?', description: null, category: 'crypto', kind: 'binary', status: 'open',
      outcomes: [{ externalMarketId: 'y', name: 'Yes', probability: 37.5, bid: 37, ask: 38 }, { externalMarketId: 'n', name: 'No', probability: 62.5, bid: null, ask: null }],
      volume: 1234.5, volume24h: 0.1, liquidity: 98765.4321, priceChange24h: -1.25, priceChange7d: null,
      startAt: at, endAt: new Date(at.getTime() + 86_400_123), closedAt: null, resolvedAtVerified: false,
      coinIds: ['1'], topics: [], spark: [[1, 0.5]], orientation: 'same', matchConfidence: 0.9, lastCaptureAt: at, updatedAt: at,
    });
    const snapshot = await readBook(db, { keyId, pmMarket: { source: 'polymarket', slug: 'book-read-market' } });
    const [stored] = await db.select().from(pmMarkets).where(and(eq(pmMarkets.source, 'polymarket'), eq(pmMarkets.slug, 'book-read-market')));
    expect(snapshot.pmMarket).toEqual(stored);
    expect(await loadPmMarket(db, 'polymarket', 'book-read-market')).toEqual(stored);
    expect(await loadPmMarket(db, 'polymarket', 'no-such-market')).toBeNull();
    expect(snapshot.pmMarket!.endAt).toEqual(new Date(at.getTime() + 86_400_123));
    expect((await readBook(db, { keyId, pmMarket: { source: 'polymarket', slug: 'no-such-market' } })).pmMarket).toBeNull();
    expect((await readBook(db, { keyId })).pmMarket).toBeUndefined();
  });
});
