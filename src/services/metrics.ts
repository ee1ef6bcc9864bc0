/**
 * Prometheus metrics of one process (prom-client). One registry per process: the HTTP
 * plugin, the scheduler and the SSE hub record into it; gauges that describe state (pool,
 * ledger queue, market freshness) are read at scrape time from the app that serves them.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HttpMetricsSource } from '../http/plugins/metrics.js';
import type { JobObserver, JobRun } from '../workers/scheduler.js';
import { venueHealth } from '../storage/pm-repo.js';

export const metricsRegistry = new Registry();
const registers = [metricsRegistry];
// The process itself: CPU, resident memory, heap, event-loop lag (prom-client's standard set).
collectDefaultMetrics({ register: metricsRegistry });

export const httpDuration = new Histogram({
  name: 'paper_arena_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status (the _count is the request rate)',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});

export const rateLimitRefusals = new Counter({
  name: 'paper_arena_rate_limit_refusals_total',
  help: 'Requests refused with 429 by budget kind (agent: per key, public: per IP)',
  labelNames: ['budget'] as const,
  registers,
});

const jobRuns = new Counter({
  name: 'paper_arena_job_runs_total',
  help: 'Background job runs on this process by job and outcome',
  labelNames: ['job', 'outcome'] as const,
  registers,
});
const jobDuration = new Histogram({
  name: 'paper_arena_job_duration_seconds',
  help: 'Background job run time',
  labelNames: ['job'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers,
});
const jobLag = new Gauge({
  name: 'paper_arena_job_lag_seconds',
  help: 'How late the last run of a job started after it was due',
  labelNames: ['job'] as const,
  registers,
});
const jobLeader = new Gauge({
  name: 'paper_arena_job_leader',
  help: '1 while this process leads the job (PostgreSQL advisory lock), else 0',
  labelNames: ['job'] as const,
  registers,
});

export const sseSubscribers = new Gauge({
  name: 'paper_arena_sse_subscribers',
  help: 'Open prediction-market SSE streams on this process',
  registers,
});
export const sseFanoutLag = new Histogram({
  name: 'paper_arena_sse_fanout_lag_seconds',
  help: 'Time from a stream event being stored to this process pushing it to its subscribers',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});

/** The app whose state the scrape-time gauges describe (the process's one app; the latest in tests). */
let source: HttpMetricsSource | null = null;
export function setMetricsSource(next: HttpMetricsSource | null): void {
  source = next;
}
export function clearMetricsSource(previous: HttpMetricsSource): void {
  if (source === previous) source = null;
}

new Gauge({
  name: 'paper_arena_db_pool_connections',
  help: 'PostgreSQL pool connections by state (total, idle, waiting clients); absent on PGlite',
  labelNames: ['state'] as const,
  registers,
  collect() {
    this.reset();
    const stats = source?.database.poolStats?.();
    if (!stats) return;
    this.set({ state: 'total' }, stats.total);
    this.set({ state: 'idle' }, stats.idle);
    this.set({ state: 'waiting' }, stats.waiting);
  },
});

new Gauge({
  name: 'paper_arena_ledger_queue_depth',
  help: 'Ledger rows buffered in memory, not yet written',
  registers,
  collect() {
    this.set(source?.ledger.stats().queuedRows ?? 0);
  },
});
new Gauge({
  name: 'paper_arena_ledger_dropped_rows',
  help: 'Ledger rows dropped since start: refused by the store (isolated one by one) or beyond the bounded queue',
  registers,
  collect() {
    this.set(source?.ledger.stats().dropped ?? 0);
  },
});
new Gauge({
  name: 'paper_arena_ledger_recording',
  help: '1 while the ledger store accepts writes, 0 while it fails (fail-open)',
  registers,
  collect() {
    this.set(source?.ledger.recording === false ? 0 : 1);
  },
});

new Gauge({
  name: 'paper_arena_market_price_age_seconds',
  help: 'Age of the newest and the oldest coin price this process serves',
  labelNames: ['which'] as const,
  registers,
  collect() {
    this.reset();
    const reads = source?.marketReads;
    if (!source || !reads) return;
    let newest = -Infinity;
    let oldest = Infinity;
    for (const coin of reads.coins()) {
      const asOf = reads.price(coin.coinId)?.asOfMs;
      if (asOf === undefined) continue;
      newest = Math.max(newest, asOf);
      oldest = Math.min(oldest, asOf);
    }
    if (!Number.isFinite(newest)) return;
    const now = source.clock.now();
    this.set({ which: 'newest' }, Math.max(0, (now - newest) / 1000));
    this.set({ which: 'oldest' }, Math.max(0, (now - oldest) / 1000));
  },
});

// prom-client collects every metric of a scrape at once, so each venue gauge fills itself in its
// own collect(); both await the one venue-health read in flight (one query per scrape).
let venueRead: Promise<Awaited<ReturnType<typeof venueHealth>>> | null = null;
function venueRows(): Promise<Awaited<ReturnType<typeof venueHealth>>> {
  if (!source) return Promise.resolve([]);
  venueRead ??= venueHealth(source.database.db)
    .catch(() => [])
    .finally(() => {
      venueRead = null;
    });
  return venueRead;
}

new Gauge({
  name: 'paper_arena_pm_venue_success_age_seconds',
  help: 'Seconds since each prediction-market venue was last read successfully',
  labelNames: ['venue', 'mode'] as const,
  registers,
  async collect() {
    const rows = await venueRows();
    this.reset();
    const now = source?.clock.now() ?? 0;
    for (const row of rows) {
      if (row.lastSuccessAt) this.set({ venue: row.source, mode: row.mode }, Math.max(0, (now - row.lastSuccessAt.getTime()) / 1000));
    }
  },
});
new Gauge({
  name: 'paper_arena_pm_venue_consecutive_failures',
  help: 'Failed reads of each prediction-market venue since its last success',
  labelNames: ['venue', 'mode'] as const,
  registers,
  async collect() {
    const rows = await venueRows();
    this.reset();
    for (const row of rows) this.set({ venue: row.source, mode: row.mode }, row.consecutiveFailures);
  },
});

/** Records job metrics; `record` also receives each run (the server logs it as a job-run record). */
export function jobMetricsObserver(record?: (run: JobRun) => void): JobObserver {
  return {
    leading(job, leads) {
      jobLeader.set({ job }, leads ? 1 : 0);
    },
    ran(run) {
      jobRuns.inc({ job: run.job, outcome: run.ok ? 'ok' : 'failed' });
      jobDuration.observe({ job: run.job }, run.durationMs / 1000);
      jobLag.set({ job: run.job }, Math.max(0, (run.startedAtMs - run.dueAtMs) / 1000));
      record?.(run);
    },
  };
}
