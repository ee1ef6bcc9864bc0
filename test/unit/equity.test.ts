import { describe, expect, it } from 'vitest';
import { Decimal, toWire } from '../../src/domain/money.js';
import { equityOf } from '../../src/services/equity.js';
import { FixedMarketFeed } from '../support/fixed-market.js';

describe('equityOf', () => {
  it('totals exactly the parts a client reads: each part at money precision before the sum', () => {
    const market = new FixedMarketFeed();
    market.set('1', 50_000.000000045, 0);
    const cash = { available: new Decimal('49000'), frozen: new Decimal(0), frozenPm: new Decimal(0), frozenFutures: new Decimal('100') };
    // 0.1 BTC at that mark is worth 5000.0000000045; a futures mark adds 0.0000000045: each rounds down, their sum up.
    const e = equityOf(cash, [{ coinId: '1', units: new Decimal('0.1'), avgCostUsd: new Decimal(0) }], [new Decimal('0.0000000045')], market);
    const parts = [e.cashTotal, e.holdingsUsd, e.adjustmentsUsd].map((d) => new Decimal(toWire(d)));
    expect(parts.reduce((a, b) => a.plus(b)).toString()).toBe(new Decimal(toWire(e.totalUsd)).toString());
  });
});
