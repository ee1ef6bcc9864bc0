import { describe, expect, it } from 'vitest';
import { guardPrice, MAX_PLAUSIBLE_PRICE_USD } from '../../src/domain/price-guard.js';

describe('guardPrice: what a live poll may put in front of orders', () => {
  const from = (last: number | null, held: number | null = null) => ({ last, held });

  it('takes the first price and moves within 25 % of the last one', () => {
    expect(guardPrice(from(null), 97_000)).toEqual({ take: true, state: from(97_000), confirmed: false });
    expect(guardPrice(from(100), 124.9)).toMatchObject({ take: true, state: from(124.9) });
    expect(guardPrice(from(100), 80.1)).toMatchObject({ take: true, state: from(80.1) });
  });

  it('holds a larger move for one poll; a second poll near it confirms it, one back near the last drops it', () => {
    const held = guardPrice(from(97_000), 970_000);
    expect(held).toEqual({ take: false, state: from(97_000, 970_000), reason: 'unconfirmed_move' });
    // back to normal: taken, the glitch forgotten
    expect(guardPrice(held.state, 97_150)).toEqual({ take: true, state: from(97_150), confirmed: false });
    // a real crash seen twice is taken on the second poll
    const crash = guardPrice(from(10), 5);
    expect(crash.take).toBe(false);
    expect(guardPrice(crash.state, 5.1)).toEqual({ take: true, state: from(5.1), confirmed: true });
    // two different wild prints confirm nothing
    const first = guardPrice(from(97_000), 97.1);
    expect(guardPrice(first.state, 9.7)).toEqual({ take: false, state: from(97_000, 9.7), reason: 'unconfirmed_move' });
  });

  it('never takes a price that cannot be one', () => {
    for (const price of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e308, MAX_PLAUSIBLE_PRICE_USD * 1.01]) {
      expect(guardPrice(from(97_000), price), String(price)).toEqual({ take: false, state: from(97_000), reason: 'implausible' });
      expect(guardPrice(from(null), price).take, String(price)).toBe(false);
    }
  });
});
