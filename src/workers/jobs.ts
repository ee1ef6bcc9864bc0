import { PRUNE_BATCH_MAX, RETENTION_DAYS } from '../ledger/run-manifest.js';
import { pmSettlementJob } from '../services/pm-trading-settlement.js';
import type { Database } from '../storage/db.js';
import type { MarketFeed } from '../marketdata/feed.js';
import { pmJobs, type PmJobConfig } from '../pm/jobs.js';
import { pruneLedgerRows } from '../storage/ledger-repo.js';
import { vacuumRewrittenTables } from '../storage/maintenance.js';
import type { Job } from './scheduler.js';
import { EQUITY_SNAPSHOT_INTERVAL_MS, snapshotEquity } from './equity-snapshots.js';
import { matchRestingOrders, SPOT_MATCHING_INTERVAL_MS } from './spot-matching.js';
import { futuresRiskJob } from './futures-risk-job.js';
import { arenaJobs } from '../services/arena-jobs.js';
import type { MarketReads } from '../marketdata/reads.js';
import { houseAgentsJob } from '../services/house-agents.js';
import { pmForecasterJob } from '../services/house-pm-forecaster.js';
import { systemClock, type Clock } from '../util/clock.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/**
 * Batches one ledger-retention run may delete: 20 × 5,000 every 10 minutes is 600,000 rows an
 * hour (one key at the default 120 requests a minute writes 7,200; one batch an hour fell behind).
 */
const PRUNE_BATCHES_PER_RUN = 20;
const RETENTION_INTERVAL_MS = 10 * MINUTE_MS;
/** PGlite runs no autovacuum: rows updated in place (PM markets every ingest) left their old versions behind for good. */
const VACUUM_INTERVAL_MS = 10 * MINUTE_MS;

export interface JobDeps {
  database: Database;
  market: MarketFeed;
  /** Stores the simulated market's checkpoint (absent where no sim runs). */
  checkpointMarket?: () => Promise<void>;
  /** Seed, profile and data mode for the PM venue ingest (default: sim with the default seed). */
  config?: PmJobConfig;
  /** Candles and changes for the house (demo) agents; no house job without them. */
  marketReads?: MarketReads | null;
  /** HOUSE_AGENTS (default on). */
  houseAgents?: boolean;
  /** FUTURES_OPEN_ENABLED (default true): the house futures agent opens only when it is. */
  futuresOpenEnabled?: boolean;
  /** PM_OPEN_ENABLED (default true): the house PM forecaster opens only when it is. */
  pmOpenEnabled?: boolean;
  /** The service clock (default: the system clock); the PM read model ages its snapshot by it. */
  clock?: Clock;
}

/** Every periodic job of the service; later capabilities add theirs here. */
export function buildJobs(deps: JobDeps): Job[] {
  const clock = deps.clock ?? systemClock;
  const jobs: Job[] = [
    {
      name: 'ledger-retention',
      intervalMs: RETENTION_INTERVAL_MS,
      keepsSchedule: true,
      async run(nowMs) {
        const before = new Date(nowMs - RETENTION_DAYS * DAY_MS);
        for (let batch = 0; batch < PRUNE_BATCHES_PER_RUN; batch += 1) {
          if ((await pruneLedgerRows(deps.database.db, before, PRUNE_BATCH_MAX)) < PRUNE_BATCH_MAX) break;
        }
      },
    },
    {
      name: 'spot-order-matching',
      intervalMs: SPOT_MATCHING_INTERVAL_MS,
      async run(nowMs) {
        await matchRestingOrders(deps.database, deps.market, nowMs, () => clock.now());
      },
    },
    {
      name: 'equity-snapshots',
      intervalMs: EQUITY_SNAPSHOT_INTERVAL_MS,
      keepsSchedule: true,
      async run(nowMs) {
        await snapshotEquity(deps.database, deps.market, nowMs);
      },
    },
    futuresRiskJob(deps),
    ...arenaJobs(deps),
    pmSettlementJob(deps),
    ...pmJobs(deps.database, deps.config ?? { simSeed: 'paper-arena', simProfile: 'realistic', marketData: { kind: 'sim' } }, fetch, deps.marketReads),
  ];
  if (deps.marketReads && deps.houseAgents !== false) jobs.push(houseAgentsJob({ database: deps.database, reads: deps.marketReads, futuresOpenEnabled: deps.futuresOpenEnabled }));
  if (deps.houseAgents !== false) {
    const profile = deps.config?.simProfile ?? 'realistic';
    jobs.push(pmForecasterJob({ database: deps.database, clock, profile, pmOpenEnabled: deps.pmOpenEnabled }));
  }
  if (deps.database.kind === 'pglite') {
    jobs.push({ name: 'pglite-vacuum', intervalMs: VACUUM_INTERVAL_MS, keepsSchedule: true, run: () => vacuumRewrittenTables(deps.database.db) });
  }
  if (deps.checkpointMarket) {
    const checkpoint = deps.checkpointMarket;
    jobs.push({ name: 'market-checkpoint', intervalMs: MINUTE_MS, run: () => checkpoint() });
  }
  return jobs;
}
