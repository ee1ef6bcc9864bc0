import type { Scheduler, SchedulerLog } from './scheduler.js';

/**
 * Start-up: the first PM ingest (on an empty database, its back-fill) runs before any other job,
 * then the regular ticks begin. Ready means data, and the jobs that read the PM markets
 * (settlement, the house forecaster) must see the resolutions and clusters stored while the
 * process was down — they ran beside that first ingest while the timer was started before it.
 */
export function startJobs(scheduler: Scheduler, progress: (line: string) => void, log: SchedulerLog, tickMs?: number): Promise<void> {
  progress('prediction markets: loading…');
  return scheduler
    .runNow('pm-ingest')
    .then((ran) => progress(ran ? 'prediction markets: lists and price history served; ready' : 'prediction markets: ingested by the leading process'))
    .catch((error: unknown) => log.warn({ err: error }, 'first PM ingest failed'))
    .finally(() => scheduler.start(tickMs));
}
