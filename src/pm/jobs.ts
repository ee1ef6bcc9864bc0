/** The PM ingest job for the scheduler (appended in src/workers/jobs.ts). */
import type { MarketReads } from '../marketdata/reads.js';
import { SIM_PROFILES } from '../marketdata/sim/params.js';
import type { Database } from '../storage/db.js';
import type { Job } from '../workers/scheduler.js';
import { PmIngest } from './ingest.js';
import { liveAdapters } from './live/index.js';
import { coinPricesFromMarket } from './sim/coin-prices.js';
import { SimWorld, type SimProfile } from './sim/world.js';

export interface PmJobConfig {
  simSeed: string;
  simProfile: SimProfile;
  marketData: { kind: string };
}

/** Sim: 12 simulated venues, back-filled on an empty database. Live: polymarket, kalshi and manifold over HTTP, the rest simulated. */
export function pmJobs(database: Database, config: PmJobConfig, fetchImpl: typeof fetch = fetch, marketReads?: MarketReads | null): Job[] {
  const live = config.marketData.kind === 'live';
  // Coin price questions follow the market this process serves (simulated, live or replayed).
  const coinPrices = marketReads ? coinPricesFromMarket(marketReads, SIM_PROFILES[config.simProfile].volatilityScale) : undefined;
  const world = new SimWorld(config.simSeed, config.simProfile, coinPrices);
  const adapters = live ? [...liveAdapters(fetchImpl), ...world.adapters().filter((a) => !['polymarket', 'kalshi', 'manifold'].includes(a.source))] : undefined;
  const ingest = new PmIngest(database, { seed: config.simSeed, profile: config.simProfile, adapters, backfill: !live, coinPrices });
  return [
    {
      name: 'pm-ingest',
      intervalMs: config.simProfile === 'fast' ? 5_000 : 15_000,
      // live venues can hang until their timeouts: in a lane of its own, the ingest holds no other job
      // (simulated venues answer at once: the ingest stays in turn with the rest)
      ...(live ? { lane: 'pm-venues' } : {}),
      run: (nowMs) => ingest.run(nowMs),
    },
  ];
}
