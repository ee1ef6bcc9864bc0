import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PmStreamHub } from '../../src/pm/stream-hub.js';
import { jobMetricsObserver } from '../../src/services/metrics.js';
import { startMetricsServer } from '../../src/services/metrics-server.js';
import { publishPmStreamEvent, recordVenueAttempt } from '../../src/storage/pm-repo.js';
import { ManualClock } from '../../src/util/clock.js';
import { SoleLeadership } from '../../src/workers/leadership.js';
import { Scheduler, type JobRun } from '../../src/workers/scheduler.js';
import { adminHeaders, bearer, createTestApp, type TestApp } from '../support/app.js';
import { engineName } from '../support/db.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { agentRpm: 2 } });
});
afterAll(async () => t?.close());

async function scrape(): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('text/plain');
  return res.body;
}

/** The value of the sample whose name and labels start the line exactly as given (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GET /metrics', () => {
  it('is for the operator only', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer('not-the-token') })).statusCode).toBe(401);
  });

  it('describes the process itself: CPU, resident memory, event-loop lag', async () => {
    const text = await scrape();
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const series = 'paper_arena_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}';
    const before = sample(await scrape(), series);
    await t.app.inject({ method: 'GET', url: '/healthz' });
    await t.app.inject({ method: 'GET', url: '/healthz?x=1' });
    await t.app.inject({ method: 'GET', url: '/no/such/thing/123' });
    const text = await scrape();
    expect(sample(text, series)).toBe(before + 2);
    expect(text).toContain('route="unmatched",status="404"');
    expect(text).not.toContain('/no/such/thing/123');
    expect(text).toContain('paper_arena_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/healthz",status="200"}');
  });

  it('counts rate-limit refusals by budget', async () => {
    const { key } = await t.newKey(['read']);
    const series = 'paper_arena_rate_limit_refusals_total{budget="agent"}';
    const before = sample(await scrape(), series);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await t.app.inject({ method: 'GET', url: '/api/agent/me', headers: bearer(key) })).statusCode);
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(sample(await scrape(), series)).toBe(before + 2);
  });

  it('counts lock-outs for wrong credentials apart from spent budgets (budget="credentials")', async () => {
    const before = await scrape();
    const wrong = { authorization: `Bearer ${'w'.repeat(24)}` };
    const statuses = new Set<number>();
    // past 60 wrong tokens a minute an address is locked out, the right token too
    for (let i = 0; i < 62; i += 1) statuses.add((await t.app.inject({ url: '/api/admin/users', headers: wrong, remoteAddress: '10.9.9.9' })).statusCode);
    const locked = await t.app.inject({ url: '/api/admin/users', headers: adminHeaders, remoteAddress: '10.9.9.9' });
    expect([...statuses, locked.statusCode]).toEqual([401, 429, 429]);
    const after = await scrape();
    expect(sample(after, 'paper_arena_rate_limit_refusals_total{budget="credentials"}')).toBe(sample(before, 'paper_arena_rate_limit_refusals_total{budget="credentials"}') + 3);
    expect(sample(after, 'paper_arena_rate_limit_refusals_total{budget="agent"}')).toBe(sample(before, 'paper_arena_rate_limit_refusals_total{budget="agent"}'));
  });

  it('reports each venue\'s success age and failures on the first scrape, as of that scrape', async () => {
    t.clock.advance(1_000);
    await recordVenueAttempt(t.ctx.database.db, 'audit-venue', 'sim', t.clock.now(), null);
    t.clock.advance(14_000);
    await recordVenueAttempt(t.ctx.database.db, 'audit-venue', 'sim', t.clock.now(), 'timeout');
    t.clock.advance(6_000);
    const text = await scrape();
    expect(sample(text, 'paper_arena_pm_venue_success_age_seconds{venue="audit-venue",mode="sim"}')).toBe(20);
    expect(sample(text, 'paper_arena_pm_venue_consecutive_failures{venue="audit-venue",mode="sim"}')).toBe(1);
    t.clock.advance(25_000);
    expect(sample(await scrape(), 'paper_arena_pm_venue_success_age_seconds{venue="audit-venue",mode="sim"}')).toBe(45);
  });

  it('reports the ledger queue and whether the ledger records', async () => {
    const text = await scrape();
    expect(text).toMatch(/^paper_arena_ledger_queue_depth \d+$/m);
    expect(sample(text, 'paper_arena_ledger_dropped_rows')).toBe(0);
    expect(sample(text, 'paper_arena_ledger_recording')).toBe(1);
  });

  it('records job runs, failures, durations, lag and leadership from the scheduler', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    const runs: JobRun[] = [];
    const scheduler = new Scheduler(
      [
        { name: 'metrics-test-ok', intervalMs: 10_000, run: async () => clock.advance(250) },
        { name: 'metrics-test-bad', intervalMs: 10_000, run: async () => Promise.reject(new Error('boom')) },
      ],
      new SoleLeadership(),
      clock,
      undefined,
      jobMetricsObserver((run) => runs.push(run)),
    );
    await scheduler.runDue();
    clock.advance(15_000);
    await scheduler.runDue();
    await scheduler.stop();

    const text = await scrape();
    expect(sample(text, 'paper_arena_job_runs_total{job="metrics-test-ok",outcome="ok"}')).toBe(2);
    expect(sample(text, 'paper_arena_job_runs_total{job="metrics-test-bad",outcome="failed"}')).toBe(2);
    expect(sample(text, 'paper_arena_job_leader{job="metrics-test-ok"}')).toBe(1);
    expect(sample(text, 'paper_arena_job_duration_seconds_sum{job="metrics-test-ok"}')).toBeCloseTo(0.5);
    // Second run of the ok job started at +15.25 s, due at +10 s.
    expect(sample(text, 'paper_arena_job_lag_seconds{job="metrics-test-ok"}')).toBeCloseTo(5.25);
    expect(runs.filter((r) => r.job === 'metrics-test-ok').map((r) => r.ok)).toEqual([true, true]);
  });

  it('reports database pool use on PostgreSQL (PGlite has no pool)', async () => {
    const text = await scrape();
    if (engineName === 'postgres') {
      // Idle connections close after 30 s, so a slow run may see 0 of them: the series is what matters.
      for (const state of ['total', 'idle', 'waiting']) expect(text).toMatch(new RegExp(`^paper_arena_db_pool_connections\\{state="${state}"\\} \\d+$`, 'm'));
    } else expect(text).not.toContain('paper_arena_db_pool_connections{');
  });

  it('tracks SSE subscribers and the fan-out lag of stored events', async () => {
    const hub = new PmStreamHub(t.testDb.database, t.clock, { heartbeatMs: 60_000 });
    await hub.start();
    const res = Object.assign(new EventEmitter(), { writeHead() {}, write() {}, end() {}, destroy() {}, writableLength: 0 });
    const before = await scrape();
    hub.attach('10.0.0.1', res as unknown as ServerResponse, null, {});
    expect(sample(await scrape(), 'paper_arena_sse_subscribers')).toBe(sample(before, 'paper_arena_sse_subscribers') + 1);

    // Stored 300 ms ago (the app's own hub may push it too: every observation is 0.3 s).
    await publishPmStreamEvent(t.testDb.database.db, 'test', { n: 1 }, t.clock.now() - 300);
    await hub.pull();
    const text = await scrape();
    const count = sample(text, 'paper_arena_sse_fanout_lag_seconds_count') - sample(before, 'paper_arena_sse_fanout_lag_seconds_count');
    const sum = sample(text, 'paper_arena_sse_fanout_lag_seconds_sum') - sample(before, 'paper_arena_sse_fanout_lag_seconds_sum');
    expect(count).toBeGreaterThanOrEqual(1);
    expect(sum / count).toBeCloseTo(0.3);

    res.emit('close');
    expect(sample(await scrape(), 'paper_arena_sse_subscribers')).toBe(sample(before, 'paper_arena_sse_subscribers'));
    await hub.stop();
  });

  it('METRICS_PORT serves the same metrics without a token, and nothing else', async () => {
    const server = await startMetricsServer(0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE paper_arena_http_request_duration_seconds histogram');
      expect((await fetch(`${base}/api/agent/me`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
