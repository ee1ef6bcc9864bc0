import { RETENTION_DAYS } from '../ledger/run-manifest.js';
import type { Database } from '../storage/db.js';
import type { MarketFeed } from '../marketdata/feed.js';
import { pmJobs, type PmJobConfig } from '../pm/jobs.js';
import { pruneLedgerRows } from '../storage/ledger-repo.js';
import type { Job } from './scheduler.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PRUNE_BATCH_MAX = 5000;

export interface JobDeps {
  database: Database;
  market: MarketFeed;
  /** Seed, profile and data mode for the PM venue ingest (default: sim with the default seed). */
  config?: PmJobConfig;
}

/** Every periodic job of the service; later capabilities add theirs here. */
export function buildJobs(deps: JobDeps): Job[] {
  return [
    {
      name: 'ledger-retention',
      intervalMs: HOUR_MS,
      async run(nowMs) {
        await pruneLedgerRows(deps.database.db, new Date(nowMs - RETENTION_DAYS * DAY_MS), PRUNE_BATCH_MAX);
      },
    },
    ...pmJobs(deps.database, deps.config ?? { simSeed: 'paper-arena', simProfile: 'realistic', marketData: { kind: 'sim' } }),
  ];
}
