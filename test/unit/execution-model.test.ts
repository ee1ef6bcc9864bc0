import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { pmFeeBps, spotMarketFill, spotSpreadBps } from '../../src/domain/execution-model.js';

describe('paper_execution_v1', () => {
  it('loses a little on a buy-then-sell at an unchanged mid', () => {
    const mid = new Decimal(100);
    const qty = new Decimal(3);
    const buy = spotMarketFill('buy', mid, qty, 1);
    const sell = spotMarketFill('sell', mid, qty, 1);
    const cashAfter = sell.notional.minus(sell.fee).minus(buy.notional.plus(buy.fee));
    expect(cashAfter.isNegative()).toBe(true);
    expect(cashAfter.abs().lessThan(1)).toBe(true);
    expect(buy.executionPrice.greaterThan(mid)).toBe(true);
    expect(sell.executionPrice.lessThan(mid)).toBe(true);
  });

  it('widens the spread for smaller coins and scales slippage with size', () => {
    expect(spotSpreadBps(1)).toBeLessThan(spotSpreadBps(100));
    expect(spotSpreadBps(null)).toBeGreaterThanOrEqual(spotSpreadBps(500));
    const small = spotMarketFill('buy', new Decimal(100), new Decimal(1), 1);
    const large = spotMarketFill('buy', new Decimal(100), new Decimal(1000), 1);
    expect(large.model.slippageBps).toBeGreaterThan(small.model.slippageBps);
  });

  it('charges the PM fee at about 1.8 % near 50 % and nothing at the extremes', () => {
    expect(pmFeeBps(0.5)).toBe(180);
    expect(pmFeeBps(0)).toBe(0);
    expect(pmFeeBps(0.99)).toBeLessThan(10);
  });
});
