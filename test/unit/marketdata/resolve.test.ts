import { describe, expect, it } from 'vitest';
import type { CoinRef } from '../../../src/domain/coin-ref.js';
import { resolveCoin } from '../../../src/domain/resolve.js';
import { similarCoins } from '../../../src/domain/similar-coins.js';
import { loadCoins } from '../../../src/marketdata/coins.js';

const coins = loadCoins();

const ref = (coinId: string, symbol: string, name: string, rank: number | null, categories: string[] = []): CoinRef => ({
  coinId,
  symbol,
  name,
  slug: name.toLowerCase().replace(/\s+/g, '-'),
  rank,
  categories,
});

describe('resolveCoin', () => {
  it('finds Bitcoin by symbol and Ethereum by slug, case-insensitively', () => {
    expect(resolveCoin(coins, 'btc').match?.coinId).toBe('1');
    expect(resolveCoin(coins, '  BTC ').match?.coinId).toBe('1');
    expect(resolveCoin(coins, 'ethereum').match?.coinId).toBe('1027');
    expect(resolveCoin(coins, 'Ethereum').match?.coinId).toBe('1027');
    expect(resolveCoin(coins, 'usdt').match?.coinId).toBe('825');
  });

  it('finds a coin by its id (UCID) before any symbol that starts with it, and folds full-width forms', () => {
    expect(resolveCoin(coins, '1').match?.coinId).toBe('1'); // not 1INCH
    expect(resolveCoin(coins, '1027').match?.coinId).toBe('1027');
    expect(resolveCoin(coins, '825').match?.coinId).toBe('825');
    expect(resolveCoin(coins, 'ＢＴＣ').match?.coinId).toBe('1');
  });

  it('returns null for nonsense and for an empty query', () => {
    expect(resolveCoin(coins, 'qqzxv-nothing')).toEqual({ query: 'qqzxv-nothing', match: null, alternatives: [] });
    expect(resolveCoin(coins, '   ').match).toBeNull();
  });

  it('prefers an exact symbol over an exact name, a name over a prefix, and a larger coin within a tier', () => {
    const list = [
      ref('10', 'ABCX', 'Abc', 5), // exact name, prefix symbol
      ref('11', 'ABC', 'Alpha Beta', 50), // exact symbol, small
      ref('12', 'ABC', 'Another Abc', 20), // exact symbol, larger
      ref('13', 'ABCD', 'Abcd Token', 1), // prefix only, the largest
    ];
    const result = resolveCoin(list, 'abc');
    expect(result.match?.coinId).toBe('12');
    expect(result.alternatives.map((c) => c.coinId)).toEqual(['11', '10', '13']);
  });

  it('lists at most 10 alternatives, never repeating the match', () => {
    const result = resolveCoin(coins, 'usd');
    expect(result.match).not.toBeNull();
    expect(result.alternatives.length).toBeGreaterThan(0);
    expect(result.alternatives.length).toBeLessThanOrEqual(10);
    expect(result.alternatives.map((c) => c.coinId)).not.toContain(result.match!.coinId);
    for (const alt of [result.match!, ...result.alternatives]) {
      const haystack = `${alt.symbol} ${alt.slug} ${alt.name}`.toLowerCase();
      expect(haystack).toContain('usd');
    }
  });
});

describe('similarCoins', () => {
  it('ranks peers by shared categories, then by market-cap neighbourhood', () => {
    const list = [
      ref('1', 'A', 'A', 1, ['Layer 1', 'Store of Value']),
      ref('2', 'B', 'B', 2, ['Layer 1', 'Smart Contracts']),
      ref('3', 'C', 'C', 3, []),
      ref('4', 'D', 'D', 40, ['layer 1', 'store of value']),
      ref('5', 'E', 'E', 9, []),
    ];
    const peers = similarCoins(list, '1', 10);
    expect(peers.map((p) => [p.coin.coinId, p.sharedCategoryCount])).toEqual([
      ['4', 2],
      ['2', 1],
      ['3', 0],
      ['5', 0],
    ]);
  });

  it('never includes the coin itself, honours the limit, and is empty for an unknown coin', () => {
    const peers = similarCoins(coins, '1027', 5);
    expect(peers).toHaveLength(5);
    expect(peers.map((p) => p.coin.coinId)).not.toContain('1027');
    for (let i = 1; i < peers.length; i += 1) {
      expect(peers[i - 1]!.sharedCategoryCount).toBeGreaterThanOrEqual(peers[i]!.sharedCategoryCount);
    }
    expect(peers[0]!.sharedCategoryCount).toBeGreaterThan(0);
    expect(similarCoins(coins, 'nope')).toEqual([]);
  });
});
