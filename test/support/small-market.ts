import { loadCoins, type Coin } from '../../src/marketdata/coins.js';
import { startSimMarket, type RunningSimMarket } from '../../src/services/sim-market-boot.js';
import type { Db } from '../../src/storage/db.js';
import { sqlSimStore } from '../../src/storage/market-repo.js';
import type { SimStore } from '../../src/storage/sim-store.js';

/** A handful of real coins (BTC, ETH, USDT, BNB, SOL, DOGE, BCH): back-fills in well under a second. */
export function smallUniverse(): Coin[] {
  const wanted = new Set(['1', '1027', '825', '1839', '5426', '74', '1831']);
  return loadCoins().filter((c) => wanted.has(c.coinId));
}

export function startSmallMarket(db: Db, nowMs: number, store: SimStore = sqlSimStore(db), seed = 'test-seed'): Promise<RunningSimMarket> {
  return startSimMarket({ db, store, coins: smallUniverse(), seed, profile: 'realistic', nowMs });
}
