import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config/env.js';
import { differingSettings, marketIdentity, processName } from '../../src/services/market-identity.js';
import { alpha, beta, identityCoins as coins } from '../support/market-identities.js';

describe('market identity (the settings every process of a deployment shares)', () => {
  it('names each setting that decides prices, and which of them differ', () => {
    expect(alpha).toEqual({ MARKET_DATA: 'sim', SIM_SEED: 'alpha', SIM_PROFILE: 'fast', COINS_FILE: expect.stringMatching(/^1 coins #[0-9a-f]{16}$/) });
    expect(marketIdentity(testConfig({ marketData: { kind: 'live' }, simSeed: 'alpha' }), coins)).not.toHaveProperty('SIM_PROFILE');
    const other = marketIdentity(testConfig({ simSeed: 'beta', simProfile: 'fast' }), [...coins, { ...coins[0]!, coinId: '2' }]);
    expect(differingSettings(alpha, other)).toEqual(['COINS_FILE', 'SIM_SEED']);
    expect(differingSettings(alpha, { ...alpha })).toEqual([]);
  });

  it('names a process as PostgreSQL will store it: settings hash first, at most 63 bytes', () => {
    const name = processName('worker', alpha, 1234567, 'ip-172-31-23-45.eu-west-1.compute.internal');
    expect(name).toMatch(/^paper-arena [0-9a-f]{8} worker 1234567@ip-172-31-23-45\.eu-west-1\.c/);
    expect(Buffer.byteLength(name)).toBe(63);
    expect(processName('api', alpha, 1, 'h').split(' ')[1]).not.toBe(processName('api', beta, 1, 'h').split(' ')[1]);
  });
});
