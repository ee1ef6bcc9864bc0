import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { progression } from '../../src/domain/progression.js';
import { decideMarketOrder, limitCrosses, matchRestingOrder, restingFreeze, reweightAvgCost, sellPnl, stopTriggers, widenRange } from '../../src/domain/spot.js';

const d = (n: number) => new Decimal(n);

describe('spot engine', () => {
  it('a round trip at an unchanged mid loses exactly the spread, slippage and two fees', () => {
    const buy = decideMarketOrder('buy', d(2000), d(3), 2, d(50_000), d(0));
    const sell = decideMarketOrder('sell', d(2000), d(3), 2, d(0), d(3));
    expect(buy.blockReasons).toEqual([]);
    expect(sell.blockReasons).toEqual([]);
    const pnl = sellPnl(buy.fill.executionPrice, sell.fill.executionPrice, d(3), sell.fill.fee).minus(buy.fill.fee);
    expect(pnl.isNegative()).toBe(true);
    const expectedLoss = buy.fill.slippageCost.plus(sell.fill.slippageCost).plus(buy.fill.fee).plus(sell.fill.fee);
    expect(pnl.negated().minus(expectedLoss).abs().toNumber()).toBeLessThan(1e-9);
  });

  it('refuses a buy the cash cannot pay (fee included) and a sell of coins not held', () => {
    const cost = decideMarketOrder('buy', d(100), d(1), 1, d(1000), d(0)).fill;
    const exact = cost.notional.plus(cost.fee);
    expect(decideMarketOrder('buy', d(100), d(1), 1, exact, d(0)).blockReasons).toEqual([]);
    expect(decideMarketOrder('buy', d(100), d(1), 1, exact.minus('0.00000001'), d(0)).blockReasons).toEqual(['insufficient_usdt_balance']);
    expect(decideMarketOrder('sell', d(100), d(1), 1, d(0), d(0.5)).blockReasons).toEqual(['insufficient_coin_balance']);
  });

  it('re-weights the average cost over held (available + frozen) units with what the buy cost, fee included', () => {
    const h = { available: d(1), frozen: d(1), avgCostUsd: d(100) };
    // 2 units for 400 notional + 0.4 fee
    expect(reweightAvgCost(h, d(2), d(400.4)).toNumber()).toBe(150.1);
    expect(reweightAvgCost({ available: d(0), frozen: d(0), avgCostUsd: d(999) }, d(1), d(10.01)).toNumber()).toBe(10.01);
  });

  it('freezes limit × qty + fee for resting buys and the units for resting sells', () => {
    expect(restingFreeze('buy', d(100), d(2)).toNumber()).toBe(200.2);
    expect(restingFreeze('sell', d(100), d(2)).toNumber()).toBe(2);
  });

  it('matches limits on the traded range, and stops trigger first, then rest', () => {
    expect(limitCrosses('buy', d(100), { low: 100, high: 120 })).toBe(true);
    expect(limitCrosses('buy', d(100), { low: 100.01, high: 120 })).toBe(false);
    expect(limitCrosses('sell', d(100), { low: 80, high: 100 })).toBe(true);
    expect(stopTriggers('buy', d(110), { low: 90, high: 110 })).toBe(true);
    expect(stopTriggers('sell', d(90), { low: 90.5, high: 110 })).toBe(false);
    const stop = { side: 'sell' as const, orderType: 'stop' as const, status: 'open' as const, limitPrice: d(89), stopPrice: d(90) };
    expect(matchRestingOrder(stop, { low: 85, high: 95 })).toBe('trigger'); // would also cross 89, but not in the trigger window
    expect(matchRestingOrder({ ...stop, status: 'triggered' }, { low: 85, high: 95 })).toBe('fill');
    expect(matchRestingOrder(stop, null)).toBe('none');
    expect(widenRange(null, 5)).toEqual({ low: 5, high: 5 });
    expect(widenRange({ low: 3, high: 4 }, 5)).toEqual({ low: 3, high: 5 });
  });

  it('progression: xp from decided trades and wins, league from xp', () => {
    expect(progression({ tradeRows: 0, decidedTrades: 0, wins: 0, ordersPlaced: 0 })).toMatchObject({ league: 'bronze', xpPoints: 0, rankInLeague: null });
    const p = progression({ tradeRows: 12, decidedTrades: 6, wins: 4, ordersPlaced: 1 });
    expect(p).toMatchObject({ league: 'silver', xpPoints: 120, nextLeague: { name: 'gold', xpNeeded: 380 } });
    expect(p.tasks.every((task) => task.done)).toBe(true);
  });
});
