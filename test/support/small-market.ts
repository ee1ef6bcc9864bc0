import { fileURLToPath } from 'node:url';
import { loadCoins, type Coin } from '../../src/marketdata/coins.js';
import { startSimMarket, type RunningSimMarket } from '../../src/services/sim-market-boot.js';
import type { Db } from '../../src/storage/db.js';
import { sqlSimStore } from '../../src/storage/market-repo.js';
import type { SimStore } from '../../src/storage/sim-store.js';

/** Eight real coins, also for server processes started by end-to-end tests (a cold start back-fills in about a second). */
export const SMALL_COINS_FILE = fileURLToPath(new URL('../fixtures/coins-small.json', import.meta.url));

/** A handful of real coins (BTC, ETH, USDT, BNB, SOL, XRP, DOGE, BCH): back-fills in well under a second. */
export function smallUniverse(): Coin[] {
  return loadCoins(SMALL_COINS_FILE);
}

export function startSmallMarket(db: Db, nowMs: number, store: SimStore = sqlSimStore(db), seed = 'test-seed'): Promise<RunningSimMarket> {
  return startSimMarket({ db, store, coins: smallUniverse(), seed, profile: 'realistic', nowMs });
}
