import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spotLimitFill, spotMarketFill } from '../../src/domain/execution-model.js';
import { Decimal } from '../../src/domain/money.js';
import { checkBooks } from '../../src/services/doctor.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { getHolding } from '../../src/storage/holdings-repo.js';
import { matchRestingOrders } from '../../src/workers/spot-matching.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';

/**
 * Random order / cancel / price / match sequences against a deliberately simple model of
 * one book (cash available + frozen, coin available + frozen, the resting orders). After
 * every step the real book must equal the model, nothing is negative, and at the end the
 * journal (doctor) agrees with the balances.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { agentRpm: 1_000_000, tradeWpm: 1_000_000 } });
});
afterAll(async () => t.close());

type Side = 'buy' | 'sell';
type Op =
  | { kind: 'market'; side: Side; q: number }
  | { kind: 'limit'; side: Side; q: number; limit: number }
  | { kind: 'stop'; side: Side; q: number; stop: number; limit: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'tick'; price: number }
  | { kind: 'idle' };

// A coarse price grid, so ticks land exactly on limit and stop prices often (the edge cases).
const price = fc.integer({ min: 45, max: 55 }).map((p) => p * 1000);
const qty = fc.constantFrom(0.01, 0.05, 0.1, 0.3, 0.5);
const side = fc.constantFrom<Side>('buy', 'sell');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('market' as const), side, q: qty }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('limit' as const), side, q: qty, limit: price }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('stop' as const), side, q: qty, stop: price, limit: price }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat(20) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tick' as const), price }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'idle' as const }) },
);

interface ModelOrder {
  side: Side;
  type: 'limit' | 'stop';
  q: Decimal;
  limit: Decimal;
  stop: Decimal | null;
  status: 'open' | 'triggered' | 'filled' | 'cancelled';
  freeze: Decimal;
}

class BookModel {
  cash = new Decimal(50_000);
  cashFrozen = new Decimal(0);
  coin = new Decimal(0);
  coinFrozen = new Decimal(0);
  orders = new Map<number, ModelOrder>();
  mark: number | null = null;
  markAtMs = 0;

  fresh(nowMs: number): boolean {
    return this.mark !== null && nowMs - this.markAtMs <= 120_000;
  }

  /** Expected outcome of a market order: 'filled' or the refusal reason. */
  market(side: Side, q: Decimal, nowMs: number): string {
    if (!this.fresh(nowMs)) return 'price_unavailable';
    const fill = spotMarketFill(side, new Decimal(this.mark!), q, 1);
    if (side === 'buy') {
      const cost = fill.notional.plus(fill.fee);
      if (this.cash.lessThan(cost)) return 'insufficient_usdt_balance';
      this.cash = this.cash.minus(cost);
      this.coin = this.coin.plus(q);
    } else {
      if (this.coin.lessThan(q)) return 'insufficient_coin_balance';
      this.coin = this.coin.minus(q);
      this.cash = this.cash.plus(fill.notional.minus(fill.fee));
    }
    return 'filled';
  }

  /** Would a limit trade now against a market order's execution price (issue 12 item 8)? */
  marketable(side: Side, q: Decimal, limit: Decimal, mark: number): boolean {
    const { executionPrice } = spotMarketFill(side, new Decimal(mark), q, 1);
    return side === 'buy' ? limit.greaterThanOrEqualTo(executionPrice) : limit.lessThanOrEqualTo(executionPrice);
  }

  rest(side: Side, type: 'limit' | 'stop', q: Decimal, limit: Decimal, stop: Decimal | null, nowMs: number): string | ModelOrder {
    if (!this.fresh(nowMs)) return 'price_unavailable'; // every order type needs a fresh price
    const live = (stop === null || (side === 'buy' ? this.mark! >= stop.toNumber() : this.mark! <= stop.toNumber()));
    if (live && this.marketable(side, q, limit, this.mark!)) return this.market(side, q, nowMs);
    const { notional, fee } = spotLimitFill(limit, q);
    const freeze = side === 'buy' ? notional.plus(fee) : q;
    if (side === 'buy') {
      if (this.cash.lessThan(freeze)) return 'insufficient_usdt_balance';
      this.cash = this.cash.minus(freeze);
      this.cashFrozen = this.cashFrozen.plus(freeze);
    } else {
      if (this.coin.lessThan(q)) return 'insufficient_coin_balance';
      this.coin = this.coin.minus(q);
      this.coinFrozen = this.coinFrozen.plus(q);
    }
    const triggered = stop !== null && (side === 'buy' ? this.mark! >= stop.toNumber() : this.mark! <= stop.toNumber());
    return { side, type, q, limit, stop, status: triggered ? 'triggered' : 'open', freeze };
  }

  release(o: ModelOrder): void {
    if (o.side === 'buy') {
      this.cashFrozen = this.cashFrozen.minus(o.freeze);
      this.cash = this.cash.plus(o.freeze);
    } else {
      this.coinFrozen = this.coinFrozen.minus(o.q);
      this.coin = this.coin.plus(o.q);
    }
    o.status = 'cancelled';
  }

  /** One matcher pass after the market traded at exactly `p` (one tick per pass). */
  trade(p: number): void {
    for (const o of this.orders.values()) {
      if (o.status === 'open' && o.type === 'stop') {
        if (!(o.side === 'buy' ? p >= o.stop!.toNumber() : p <= o.stop!.toNumber())) continue;
        if (!this.marketable(o.side, o.q, o.limit, p)) {
          o.status = 'triggered';
          continue;
        }
        // triggered with a marketable limit: a taker fill at the market execution price, out of the freeze
        const fill = spotMarketFill(o.side, new Decimal(p), o.q, 1);
        if (o.side === 'buy') {
          this.cashFrozen = this.cashFrozen.minus(o.freeze);
          this.cash = this.cash.plus(o.freeze.minus(fill.notional.plus(fill.fee)));
          this.coin = this.coin.plus(o.q);
        } else {
          this.coinFrozen = this.coinFrozen.minus(o.q);
          this.cash = this.cash.plus(fill.notional.minus(fill.fee));
        }
        o.status = 'filled';
        continue;
      }
      if (o.status !== 'open' && o.status !== 'triggered') continue;
      const crosses = o.side === 'buy' ? p <= o.limit.toNumber() : p >= o.limit.toNumber();
      if (!crosses) continue;
      const { notional, fee } = spotLimitFill(o.limit, o.q);
      if (o.side === 'buy') {
        this.cashFrozen = this.cashFrozen.minus(o.freeze);
        this.cash = this.cash.plus(o.freeze.minus(notional.plus(fee)));
        this.coin = this.coin.plus(o.q);
      } else {
        this.coinFrozen = this.coinFrozen.minus(o.q);
        this.cash = this.cash.plus(notional.minus(fee));
      }
      o.status = 'filled';
    }
  }
}

let seq = 0;

async function runSequence(ops: Op[]): Promise<void> {
  const { key, keyId } = await t.newKey(['read', 'trade:spot']);
  const model = new BookModel();
  const ids: number[] = [];
  const db = t.ctx.database.db;
  const send = (payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { coinId: '1', idempotencyKey: `p-${(seq += 1)}`, ...payload } });

  // Every sequence starts from a fresh price.
  t.clock.advance(10_000);
  t.market.set('1', 50_000, t.clock.now());
  await matchRestingOrders(t.ctx.database, t.market, t.clock.now());
  model.mark = 50_000;
  model.markAtMs = t.clock.now();

  for (const o of ops) {
    t.clock.advance(1000);
    const now = t.clock.now();
    if (o.kind === 'market') {
      const expected = model.market(o.side, new Decimal(o.q), now);
      const res = await send({ side: o.side, orderType: 'market', quantity: o.q });
      if (expected === 'filled') expect(res.statusCode, res.body).toBe(200);
      else expect(res.json().blockReasons).toEqual([expected]);
    } else if (o.kind === 'limit' || o.kind === 'stop') {
      const stop = o.kind === 'stop' ? new Decimal(o.stop) : null;
      const expected = model.rest(o.side, o.kind, new Decimal(o.q), new Decimal(o.limit), stop, now);
      const res = await send({ side: o.side, orderType: o.kind, quantity: o.q, limitPrice: o.limit, ...(o.kind === 'stop' ? { stopPrice: o.stop } : {}) });
      if (expected === 'filled') {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ tradeId: expect.any(Number), summary: { marketable: true } });
        expect(res.json().orderId).toBeUndefined();
      } else if (typeof expected === 'string') {
        expect(res.json().blockReasons).toEqual([expected]);
      } else {
        expect(res.statusCode, res.body).toBe(200);
        const id = res.json().restingOrderId as number;
        model.orders.set(id, expected);
        ids.push(id);
        if (stop) expect(res.json().summary.triggered).toBe(expected.status === 'triggered');
      }
    } else if (o.kind === 'cancel') {
      const id = ids.length > 0 ? ids[o.pick % ids.length]! : 1_000_000 + o.pick;
      const m = model.orders.get(id);
      const res = await t.app.inject({ method: 'POST', url: `/api/agent/spot/order/${id}/cancel`, headers: bearer(key) });
      if (m && (m.status === 'open' || m.status === 'triggered')) {
        expect(res.json()).toEqual({ ok: true });
        model.release(m);
      } else {
        expect(res.json()).toEqual({ ok: true, alreadyClosed: true });
      }
    } else if (o.kind === 'tick') {
      t.clock.advance(9000);
      t.market.set('1', o.price, t.clock.now());
      model.mark = o.price;
      model.markAtMs = t.clock.now();
      await matchRestingOrders(t.ctx.database, t.market, t.clock.now());
      model.trade(o.price);
    } else {
      t.clock.advance(130_000); // the price goes stale: market orders must refuse
    }

    // Refused writes roll back entirely: a book whose every write was refused was never funded.
    const wallet = (await findWallet(db, keyId)) ?? { id: -1, available: new Decimal(50_000), frozen: new Decimal(0) };
    const holding = await getHolding(db, wallet.id, '1');
    for (const [real, expected] of [
      [wallet.available, model.cash],
      [wallet.frozen, model.cashFrozen],
      [holding.available, model.coin],
      [holding.frozen, model.coinFrozen],
    ] as const) {
      expect(real.isNegative()).toBe(false);
      expect(real.minus(expected).abs().toNumber(), `${JSON.stringify(o)}: ${real} vs ${expected}`).toBeLessThan(1e-9);
    }
  }
  const open = (await t.app.inject({ method: 'GET', url: '/api/agent/orders/open?limit=200', headers: bearer(key) })).json();
  const expectedOpen = [...model.orders.entries()].filter(([, m]) => m.status === 'open' || m.status === 'triggered');
  expect(open.rows.map((r: { id: number; status: string }) => [r.id, r.status]).sort()).toEqual(expectedOpen.map(([id, m]) => [id, m.status]).sort());
}

describe('spot book against a simple model (property)', () => {
  it('random order / cancel / fill sequences keep the book equal to the model and to its journal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => runSequence(ops)),
      { numRuns: 30 },
    );
    expect(await checkBooks(t.ctx.database.db)).toMatchObject({ ok: true, discrepancies: [], holdingDiscrepancies: [] });
  }, 240_000);
});
