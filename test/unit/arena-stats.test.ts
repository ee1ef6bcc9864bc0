import { describe, expect, it } from 'vitest';
import { winRateOf } from '../../src/arena/stats.js';
import { Decimal, toWire } from '../../src/domain/money.js';

describe('Arena win rate', () => {
  it('is wins / decided to 8 places, half to even, exactly as /api/agent/performance sends it', () => {
    const counts = (wins: number, losses: number) => ({ pnl: 0, trades: wins + losses, wins, losses, neutrals: 0 });
    // 1 / 512 = 0.001953125: half to even gives …12, a float rounded half up …13
    expect(winRateOf(counts(1, 511))).toBe(0.00195312);
    expect(winRateOf(counts(3, 10))).toBe(toWire(new Decimal(3).div(13)));
    expect(winRateOf(counts(0, 0))).toBeNull();
  });
});
