import { describe, expect, it } from 'vitest';
import { percentChange, realizedDailyVolatility, sentimentView } from '../../../src/domain/market-stats.js';

describe('market stats', () => {
  it('expresses changes as percentages', () => {
    expect(percentChange(102.5, 100)).toBeCloseTo(2.5, 10);
    expect(percentChange(50, 100)).toBeCloseTo(-50, 10);
    expect(percentChange(1, null)).toBeNull();
    expect(percentChange(1, 0)).toBeNull();
  });

  it('summarises votes with an integer bullish percentage', () => {
    expect(sentimentView(2, 1)).toEqual({ bullishVotes: 2, bearishVotes: 1, totalVotes: 3, bullishPct: 67 });
    expect(sentimentView(0, 0).bullishPct).toBeNull();
  });

  it('estimates daily volatility from evenly spaced prices', () => {
    // alternating +1 % / -1 % hourly moves: daily vol = 1 % x sqrt(24)
    const prices = [100];
    for (let i = 0; i < 48; i += 1) prices.push(prices[i]! * Math.exp(i % 2 === 0 ? 0.01 : -0.01));
    expect(realizedDailyVolatility(prices, 3600)).toBeCloseTo(0.01 * Math.sqrt(24), 10);
    expect(realizedDailyVolatility([1, 2], 60)).toBeNull();
  });
});
