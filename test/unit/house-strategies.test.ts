import { describe, expect, it } from 'vitest';
import { boardSource, houseStepsAside, HOUSE_STEP_ASIDE_LIVE_AGENTS } from '../../src/arena/house/board-rule.js';
import { meanReversion, zScore } from '../../src/arena/house/mean-reversion.js';
import { futuresTrend } from '../../src/arena/house/futures-trend.js';
import { momentum } from '../../src/arena/house/momentum.js';
import { HOUSE_MAX_POSITIONS, unitsFor } from '../../src/arena/house/sizing.js';
import type { HouseBook, HouseCoinView } from '../../src/arena/house/types.js';

/** 5-minute closes around `level`, alternating ±`wiggle` (a hand-made, steady day). */
const steady = (level: number, wiggle: number, bars = 288) => Array.from({ length: bars }, (_, i) => level + (i % 2 === 0 ? wiggle : -wiggle));

const coin = (coinId: string, priceUsd: number, change1h: number | null, change24h: number | null, closes5m: number[] = []): HouseCoinView => ({
  coinId,
  priceUsd,
  change1h,
  change24h,
  closes5m,
});

const cashOnly: HouseBook = { cashUsd: 50_000, positions: [] };

describe('momentum', () => {
  it('buys coins rising over the hour and the day, strongest day first, 20 % of equity each', () => {
    const market = [
      coin('1', 100_000, 0.8, 3, []), // qualifies
      coin('1027', 4_000, 1.2, 6, []), // qualifies, stronger day
      coin('5426', 200, 0.2, 9, []), // the hour is too weak
      coin('74', 0.3, 2, 1, []), // the day is too weak
      coin('1839', 600, null, 10, []), // no history
    ];
    const orders = momentum(market, cashOnly);
    expect(orders.map((o) => [o.coinId, o.side])).toEqual([
      ['1027', 'buy'],
      ['1', 'buy'],
    ]);
    // 20 % of 50,000 = 10,000 mUSD each, rounded down to 6 significant digits.
    expect(orders[0]!.quantity).toBe(2.5);
    expect(orders[1]!.quantity).toBe(0.1);
    for (const o of orders) expect(o.quantity * market.find((c) => c.coinId === o.coinId)!.priceUsd).toBeLessThanOrEqual(10_000);
  });

  it('sells on a reversal, a stop-loss or a take-profit, and holds otherwise', () => {
    const book: HouseBook = {
      cashUsd: 10_000,
      positions: [
        { coinId: '1', quantity: 0.1, avgCostUsd: 100_000 }, // hour turned down → reversal
        { coinId: '1027', quantity: 2, avgCostUsd: 4_000 }, // −3.5 % → stop-loss
        { coinId: '5426', quantity: 50, avgCostUsd: 200 }, // +6 % → take-profit
        { coinId: '74', quantity: 1000, avgCostUsd: 0.3 }, // still rising → hold
      ],
    };
    const market = [coin('1', 100_500, -0.7, 3), coin('1027', 3_860, 0.1, 2), coin('5426', 212, 0.4, 8), coin('74', 0.31, 0.6, 4)];
    const orders = momentum(market, book);
    expect(orders.map((o) => [o.coinId, o.side, o.quantity, o.reason])).toEqual([
      ['1', 'sell', 0.1, 'reversal'],
      ['1027', 'sell', 2, 'stop_loss'],
      ['5426', 'sell', 50, 'take_profit'],
    ]);
  });

  it('never holds more than the position limit and never spends more than its cash', () => {
    const market = Array.from({ length: 8 }, (_, i) => coin(String(100 + i), 10, 1, 5 + i));
    const orders = momentum(market, { cashUsd: 15_000, positions: [{ coinId: '999', quantity: 1, avgCostUsd: 1 }] });
    expect(orders.length).toBeLessThanOrEqual(HOUSE_MAX_POSITIONS - 1);
    const spent = orders.reduce((s, o) => s + o.quantity * 10, 0);
    expect(spent).toBeLessThanOrEqual(15_000);
    // Strongest 24 h change first.
    expect(orders[0]!.coinId).toBe('107');
  });

  it('decides the same on the same market and book (no clock, no randomness)', () => {
    const market = [coin('1', 100_000, 0.8, 3), coin('1027', 4_000, 1.2, 6)];
    expect(momentum(market, cashOnly)).toEqual(momentum(market, cashOnly));
  });
});

describe('mean reversion', () => {
  it('buys a price two standard deviations under its 4-hour average of 5-minute closes', () => {
    const closes = [...steady(100, 1), 95];
    const dip = coin('1', 95, -2, -1, closes);
    expect(zScore(dip)).toBeLessThan(-2);
    const flat = coin('1027', 100.5, 0, 0, [...steady(100, 1), 100.5]);
    const orders = meanReversion([dip, flat], cashOnly);
    expect(orders).toEqual([{ coinId: '1', side: 'buy', quantity: unitsFor(10_000, 95), reason: 'dip' }]);
  });

  it('sells once the price is back at the average, or on its stop-loss', () => {
    const back = coin('1', 100.2, 0, 0, [...steady(100, 1), 100.2]);
    const crash = coin('1027', 90, -5, -8, [...steady(100, 1), 90]);
    const book: HouseBook = {
      cashUsd: 30_000,
      positions: [
        { coinId: '1', quantity: 100, avgCostUsd: 95 },
        { coinId: '1027', quantity: 100, avgCostUsd: 95 },
      ],
    };
    expect(meanReversion([back, crash], book).map((o) => [o.coinId, o.side, o.reason])).toEqual([
      ['1', 'sell', 'reverted'],
      ['1027', 'sell', 'stop_loss'],
    ]);
  });

  it('ignores coins that barely move (stablecoins) and coins without 4 hours of bars', () => {
    expect(zScore(coin('825', 0.99, 0, 0, [...steady(1, 0.00001), 0.99]))).toBeNull();
    expect(zScore(coin('1', 95, 0, 0, [...steady(100, 1, 20), 95]))).toBeNull();
  });
});

describe('futures trend', () => {
  it('goes long a strong day the hour confirms and short a weak one, with stop-loss and take-profit', () => {
    const market = [coin('1', 100_000, 0.5, 4), coin('1027', 4_000, -0.6, -5), coin('5426', 200, -0.4, 6), coin('74', 0.3, 0.1, 1)];
    const orders = futuresTrend(market, { cashUsd: 50_000, positions: [] });
    // Margins: 15 % of cash (7,500), then 15 % of (50,000 − 7,500 × 1.01 kept for the first open and its fee) = 6,363.
    expect(orders).toEqual([
      { kind: 'open', coinId: '1027', side: 'short', leverage: 3, marginMusd: 7500, stopLossPrice: 4080, takeProfitPrice: 3840, reason: 'trend_down' },
      { kind: 'open', coinId: '1', side: 'long', leverage: 3, marginMusd: 6363, stopLossPrice: 98_000, takeProfitPrice: 104_000, reason: 'trend_up' },
    ]);
  });

  it('closes a position when the hour turns against it, and keeps the rest', () => {
    const market = [coin('1', 100_000, -0.6, 4), coin('1027', 4_000, -0.6, -5)];
    const book = {
      cashUsd: 1_000,
      positions: [
        { positionId: 7, coinId: '1', side: 'long' as const },
        { positionId: 8, coinId: '1027', side: 'short' as const },
      ],
    };
    expect(futuresTrend(market, book)).toEqual([{ kind: 'close', positionId: 7, coinId: '1', reason: 'reversal' }]);
  });
});

describe('unitsFor', () => {
  it('rounds down to 6 significant digits and never exceeds the notional', () => {
    expect(unitsFor(10_000, 3)).toBe(3333.33);
    expect(unitsFor(10_000, 0.000123)).toBe(81300800);
    expect(unitsFor(0, 3)).toBe(0);
    for (const price of [0.0000071, 0.37, 13.3, 97_123.45]) expect(unitsFor(9_999, price) * price).toBeLessThanOrEqual(9_999);
  });
});

describe('board rule', () => {
  it(`house agents step aside once ${HOUSE_STEP_ASIDE_LIVE_AGENTS} live agents have 5 decided trades each`, () => {
    expect(houseStepsAside([])).toBe(false);
    expect(houseStepsAside([5, 5, 4, 100])).toBe(true);
    expect(houseStepsAside([5, 5, 4, 0])).toBe(false);
  });

  it('the board is demo only while every listed row is a house agent', () => {
    expect(boardSource(0, 2)).toBe('demo');
    expect(boardSource(1, 2)).toBe('live');
    expect(boardSource(0, 0)).toBe('live');
  });
});
