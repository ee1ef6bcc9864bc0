import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASH_COIN_ID } from '../../../src/domain/money.js';
import { CoinsFileError, loadCoins, parseCoins } from '../../../src/marketdata/coins.js';

const good = {
  coinId: '1',
  slug: 'bitcoin',
  symbol: 'BTC',
  name: 'Bitcoin',
  rank: 1,
  categories: ['Layer 1'],
  priceUsd: 1,
  marketCapUsd: 1,
  volume24hUsd: 0,
  circulatingSupply: 1,
};
const usdt = { ...good, coinId: CASH_COIN_ID, slug: 'tether', symbol: 'USDT', name: 'Tether', rank: 3 };

describe('coin universe', () => {
  it('loads the 300 catalogue coins in rank order with BTC, ETH and the USDT cash coin', () => {
    const coins = loadCoins();
    expect(coins).toHaveLength(300);
    expect(coins[0]!.coinId).toBe('1');
    expect(coins.find((c) => c.coinId === '1027')?.symbol).toBe('ETH');
    expect(coins.find((c) => c.coinId === CASH_COIN_ID)?.symbol).toBe('USDT');
    for (let i = 1; i < coins.length; i += 1) expect(coins[i]!.rank).toBeGreaterThanOrEqual(coins[i - 1]!.rank);
    for (const c of coins) expect(c.priceUsd).toBeGreaterThan(0);
  });

  it('reports every problem of a bad file at once', () => {
    const bad = [good, { ...good, slug: 'b2', priceUsd: -3, name: '' }, { ...usdt, categories: 'x' }];
    try {
      parseCoins(bad);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CoinsFileError);
      const problems = (err as CoinsFileError).problems;
      expect(problems.some((p) => p.includes('[1].priceUsd'))).toBe(true);
      expect(problems.some((p) => p.includes('[1].name'))).toBe(true);
      expect(problems.some((p) => p.includes('[2].categories'))).toBe(true);
    }
  });

  it('rejects duplicate ids, a missing cash coin, and a file that is not an array', () => {
    expect(() => parseCoins([good, { ...good, slug: 'other' }, usdt])).toThrow(/duplicate coinId 1/);
    expect(() => parseCoins([good])).toThrow(/cash coin/);
    expect(() => parseCoins({ coins: [] })).toThrow(CoinsFileError);
    const dir = mkdtempSync(join(tmpdir(), 'coins-'));
    writeFileSync(join(dir, 'bad.json'), '{not json');
    expect(() => loadCoins(join(dir, 'bad.json'))).toThrow(CoinsFileError);
    expect(parseCoins([usdt, good]).map((c) => c.coinId)).toEqual(['1', CASH_COIN_ID]);
  });
});
