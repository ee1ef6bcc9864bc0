import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config/env.js';
import type { Coin } from '../../src/marketdata/coins.js';
import { claimMarketIdentity, differingSettings, marketIdentity, MarketIdentityError } from '../../src/services/market-identity.js';
import type { Database } from '../../src/storage/db.js';
import { readMarketIdentity } from '../../src/storage/market-identity-repo.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';

const coins = [{ coinId: '1', symbol: 'BTC', name: 'Bitcoin', slug: 'bitcoin', rank: 1 }] as unknown as Coin[];
const sim = marketIdentity(testConfig({ simSeed: 'alpha', simProfile: 'fast' }), coins);

describe('market identity (the settings every process of a deployment shares)', () => {
  it('names each setting that decides prices, and which of them differ', () => {
    expect(sim).toEqual({ MARKET_DATA: 'sim', SIM_SEED: 'alpha', SIM_PROFILE: 'fast', COINS_FILE: expect.stringMatching(/^1 coins #[0-9a-f]{16}$/) });
    expect(marketIdentity(testConfig({ marketData: { kind: 'live' }, simSeed: 'alpha' }), coins)).not.toHaveProperty('SIM_PROFILE');
    const other = marketIdentity(testConfig({ simSeed: 'beta', simProfile: 'fast' }), [...coins, { ...coins[0]!, coinId: '2' }]);
    expect(differingSettings(sim, other)).toEqual(['COINS_FILE', 'SIM_SEED']);
    expect(differingSettings(sim, { ...sim })).toEqual([]);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('claiming it on PostgreSQL', () => {
  let testDb: TestDatabase;
  let api: Database;
  beforeAll(async () => {
    testDb = await freshDatabase();
    api = await testDb.openAnother({ applicationName: 'paper-arena api 101@host-a' });
  });
  afterAll(async () => testDb?.drop());

  it('refuses a process with other settings while one with the recorded settings runs; alone, it records its own', async () => {
    await claimMarketIdentity(api.db, sim, 'paper-arena api 101@host-a');
    const other = { ...sim, SIM_SEED: 'beta' };
    const worker = await testDb.openAnother({ applicationName: 'paper-arena worker 202@host-b' });
    const refusal = await claimMarketIdentity(worker.db, other, 'paper-arena worker 202@host-b').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MarketIdentityError);
    expect((refusal as Error).message).toContain('(paper-arena api 101@host-a) serve another market: SIM_SEED alpha there, beta here');
    expect(await readMarketIdentity(api.db)).toEqual(sim);
    // the same settings are welcome beside it
    await claimMarketIdentity(worker.db, sim, 'paper-arena worker 202@host-b');
    // once the api is gone, a process alone may change the settings (a deliberate restart)
    await api.close();
    await claimMarketIdentity(worker.db, other, 'paper-arena worker 202@host-b');
    expect(await readMarketIdentity(worker.db)).toEqual(other);
  });
});
