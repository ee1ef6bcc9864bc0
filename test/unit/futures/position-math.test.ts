import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addToPosition,
  closeSettlement,
  isThroughLiquidation,
  liquidationDistancePct,
  liquidationPrice,
  liquidationSettlement,
  MAINTENANCE_MARGIN_RATE,
  openTerms,
  type FuturesSide,
  type PositionState,
} from '../../../src/domain/futures/position-math.js';
import { firedTrigger, triggerProblems } from '../../../src/domain/futures/triggers.js';
import { Decimal } from '../../../src/domain/money.js';

const side = fc.constantFrom<FuturesSide>('long', 'short');
const price = fc.double({ min: 0.0001, max: 1_000_000, noNaN: true }).map((p) => new Decimal(p));
const leverage = fc.double({ min: 1, max: 20, noNaN: true }).map((l) => new Decimal(l));
const margin = fc.double({ min: 10, max: 100_000, noNaN: true }).map((m) => new Decimal(m).toDecimalPlaces(8));

function stateOf(s: FuturesSide, entry: Decimal, lev: Decimal, m: Decimal): PositionState {
  const t = openTerms(s, entry, lev, m);
  return { side: s, leverage: lev, entryPrice: entry, margin: m, sizeCoin: t.sizeCoin, openFeesUnrealized: t.fee };
}

describe('liquidation price (property)', () => {
  it('lies on the losing side of entry: below for a long, above for a short', () => {
    fc.assert(
      fc.property(side, price, leverage, (s, entry, lev) => {
        const liq = liquidationPrice(s, entry, lev);
        return s === 'long' ? liq.lt(entry) && liq.gt(0) : liq.gt(entry);
      }),
    );
  });

  it('is closer to entry for higher leverage', () => {
    fc.assert(
      fc.property(side, price, leverage, leverage, (s, entry, a, b) => {
        fc.pre(!a.eq(b));
        const [low, high] = a.lt(b) ? [a, b] : [b, a];
        const gap = (lev: Decimal) => liquidationPrice(s, entry, lev).minus(entry).abs();
        return gap(high).lt(gap(low));
      }),
    );
  });

  it('is where the price loss leaves exactly the maintenance margin', () => {
    fc.assert(
      fc.property(side, price, leverage, margin, (s, entry, lev, m) => {
        const t = openTerms(s, entry, lev, m);
        const liq = liquidationPrice(s, entry, lev);
        const dir = s === 'long' ? 1 : -1;
        const left = m.plus(liq.minus(entry).times(t.sizeCoin).times(dir));
        return left.minus(t.notional.times(MAINTENANCE_MARGIN_RATE)).abs().lt('1e-8');
      }),
    );
  });

  it('counts the mark at or through it as liquidation, and the distance as ≤ 0 there', () => {
    fc.assert(
      fc.property(side, price, leverage, (s, entry, lev) => {
        const liq = liquidationPrice(s, entry, lev);
        return isThroughLiquidation(s, liq, liq) && liquidationDistancePct(s, liq, liq).isZero() && !isThroughLiquidation(s, entry, liq);
      }),
    );
  });

  it('matches the documented formula at 10x', () => {
    expect(liquidationPrice('long', new Decimal(100), new Decimal(10)).toNumber()).toBe(90.5);
    expect(liquidationPrice('short', new Decimal(100), new Decimal(10)).toNumber()).toBe(109.5);
  });
});

describe('open terms and fees', () => {
  it('sizes notional = margin × leverage at entry, with a 5 bps taker fee', () => {
    const t = openTerms('long', new Decimal(50_000), new Decimal(10), new Decimal(1000));
    expect(t.notional.toNumber()).toBe(10_000);
    expect(t.sizeCoin.toNumber()).toBe(0.2);
    expect(t.fee.toNumber()).toBe(5);
  });

  it('loses a little on a flat round trip (both fees in realized PnL)', () => {
    const s = stateOf('short', new Decimal(200), new Decimal(5), new Decimal(100));
    const c = closeSettlement(s, new Decimal(1), new Decimal(200));
    expect(c.realizedPnl.toNumber()).toBeCloseTo(-0.5, 8);
    expect(c.cashBack.toNumber()).toBeCloseTo(99.75, 8);
  });
});

describe('partial closes (property)', () => {
  it('conserve margin, size and fees across the closed part and the remainder', () => {
    fc.assert(
      fc.property(side, price, leverage, margin, fc.double({ min: 0.01, max: 1, noNaN: true }), price, (s, entry, lev, m, f, mark) => {
        const st = stateOf(s, entry, lev, m);
        const c = closeSettlement(st, new Decimal(f), mark);
        return (
          c.releasedMargin.plus(c.remaining.margin).eq(st.margin) &&
          c.openFeeShare.plus(c.remaining.openFeesUnrealized).eq(st.openFeesUnrealized) &&
          c.closedSize.plus(c.remaining.sizeCoin).minus(st.sizeCoin).abs().div(st.sizeCoin).lt('1e-15') &&
          c.cashBack.gte(0) &&
          // a close never loses more than the margin it releases plus its share of the open fee
          c.realizedPnl.gte(c.releasedMargin.plus(c.openFeeShare).negated())
        );
      }),
    );
  });

  it('forfeits the whole margin (and the open fee) on a liquidation', () => {
    const st = stateOf('long', new Decimal(100), new Decimal(10), new Decimal(100));
    // 10 coins from 100, liquidated at 90.5 (long 10x: 100 × (1 − 0.1 + 0.005)): the move is −95, the margin lost 100
    expect(liquidationSettlement(st, new Decimal('90.5'))).toEqual({ forfeitedMargin: new Decimal(100), realizedPnl: new Decimal(-100.5), pricePnl: new Decimal(-95) });
    // through a gap the move is more than the margin; the cash lost stays the margin
    expect(liquidationSettlement(st, new Decimal(85)).pricePnl).toEqual(new Decimal(-150));
  });
});

describe('adding to a position (property)', () => {
  it('weights the entry by size, keeps notional = margin × leverage and recomputes liquidation', () => {
    fc.assert(
      fc.property(side, price, price, leverage, margin, margin, (s, e1, e2, lev, m1, m2) => {
        const merged = addToPosition(stateOf(s, e1, lev, m1), e2, m2);
        const [lo, hi] = e1.lt(e2) ? [e1, e2] : [e2, e1];
        const notional = merged.entryPrice.times(merged.sizeCoin);
        return (
          merged.entryPrice.gte(lo.times(1 - 1e-12)) &&
          merged.entryPrice.lte(hi.times(1 + 1e-12)) &&
          notional.minus(m1.plus(m2).times(lev)).abs().div(notional).lt('1e-12') &&
          merged.liquidationPrice.eq(liquidationPrice(s, merged.entryPrice, lev))
        );
      }),
    );
  });
});

describe('stop-loss / take-profit', () => {
  const d = (n: number) => new Decimal(n);
  it('accepts liq < SL < mark < TP for a long and names every broken rule', () => {
    expect(triggerProblems('long', d(100), d(90.5), d(95), d(110))).toEqual([]);
    expect(triggerProblems('long', d(100), d(90.5), d(101), d(99))).toEqual(['stop_loss_not_below_mark', 'take_profit_not_above_mark']);
    expect(triggerProblems('long', d(100), d(90.5), d(90), null)).toEqual(['stop_loss_not_above_liquidation']);
  });

  it('mirrors the rules for a short', () => {
    expect(triggerProblems('short', d(100), d(109.5), d(105), d(90))).toEqual([]);
    expect(triggerProblems('short', d(100), d(109.5), d(99), d(101))).toEqual(['stop_loss_not_above_mark', 'take_profit_not_below_mark']);
    expect(triggerProblems('short', d(100), d(109.5), d(110), null)).toEqual(['stop_loss_not_below_liquidation']);
  });

  it('fires liquidation before the stop-loss, and the take-profit on the winning side', () => {
    expect(firedTrigger('long', d(90), d(90.5), d(95), d(110))).toBe('liquidation');
    expect(firedTrigger('long', d(94), d(90.5), d(95), d(110))).toBe('stop_loss');
    expect(firedTrigger('long', d(111), d(90.5), d(95), d(110))).toBe('take_profit');
    expect(firedTrigger('long', d(100), d(90.5), d(95), d(110))).toBeNull();
    expect(firedTrigger('short', d(89), d(109.5), d(105), d(90))).toBe('take_profit');
    expect(firedTrigger('short', d(120), d(109.5), d(105), d(90))).toBe('liquidation');
  });
});
