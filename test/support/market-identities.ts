import { testConfig } from '../../src/config/env.js';
import type { Coin } from '../../src/marketdata/coins.js';
import { marketIdentity } from '../../src/services/market-identity.js';

/** A one-coin universe, and three market identities on it that differ in their seed. */
export const identityCoins = [{ coinId: '1', symbol: 'BTC', name: 'Bitcoin', slug: 'bitcoin', rank: 1 }] as unknown as Coin[];
export const alpha = marketIdentity(testConfig({ simSeed: 'alpha', simProfile: 'fast' }), identityCoins);
export const beta = marketIdentity(testConfig({ simSeed: 'beta', simProfile: 'fast' }), identityCoins);
export const gamma = marketIdentity(testConfig({ simSeed: 'gamma', simProfile: 'fast' }), identityCoins);
