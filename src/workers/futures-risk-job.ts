import { sweepFuturesRisk } from '../services/futures/risk-sweep.js';
import { systemClock } from '../util/clock.js';
import type { JobDeps } from './jobs.js';
import type { Job } from './scheduler.js';

/** Every minute: liquidations, then stop-losses and take-profits, off the market feed's marks. */
export function futuresRiskJob(deps: JobDeps): Job {
  const clock = deps.clock ?? systemClock;
  return {
    name: 'futures-risk',
    intervalMs: 60_000,
    async run(nowMs) {
      await sweepFuturesRisk(deps.database.db, deps.market, nowMs, undefined, () => clock.now());
    },
  };
}
