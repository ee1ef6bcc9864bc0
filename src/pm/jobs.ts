/** The PM ingest job for the scheduler (appended in src/workers/jobs.ts). */
import type { Database } from '../storage/db.js';
import type { Job } from '../workers/scheduler.js';
import { PmIngest } from './ingest.js';
import { liveAdapters } from './live/index.js';
import { SimWorld, type SimProfile } from './sim/world.js';

export interface PmJobConfig {
  simSeed: string;
  simProfile: SimProfile;
  marketData: { kind: string };
}

/** Sim: 12 simulated venues, back-filled on an empty database. Live: polymarket, kalshi and manifold over HTTP, the rest simulated. */
export function pmJobs(database: Database, config: PmJobConfig, fetchImpl: typeof fetch = fetch): Job[] {
  const live = config.marketData.kind === 'live';
  const world = new SimWorld(config.simSeed, config.simProfile);
  const adapters = live ? [...liveAdapters(fetchImpl), ...world.adapters().filter((a) => !['polymarket', 'kalshi', 'manifold'].includes(a.source))] : undefined;
  const ingest = new PmIngest(database, { seed: config.simSeed, profile: config.simProfile, adapters, backfill: !live });
  return [
    {
      name: 'pm-ingest',
      intervalMs: config.simProfile === 'fast' ? 5_000 : 15_000,
      run: (nowMs) => ingest.run(nowMs),
    },
  ];
}
