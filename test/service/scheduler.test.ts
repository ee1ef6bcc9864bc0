import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/util/clock.js';
import { SoleLeadership, type Leadership } from '../../src/workers/leadership.js';
import { Scheduler, type Job, type JobScheduleStore } from '../../src/workers/scheduler.js';
import { startJobs } from '../../src/workers/start-jobs.js';
import { databaseJobSchedule } from '../../src/storage/job-schedule-repo.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { deferred } from '../support/deferred.js';

const MINUTE_MS = 60_000;
const START = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A job that records the clock time of every run. */
function countingJob(name: string, intervalMs = MINUTE_MS): Job & { runs: number[] } {
  const runs: number[] = [];
  return {
    name,
    intervalMs,
    runs,
    async run(nowMs) {
      runs.push(nowMs);
    },
  };
}

describe('Scheduler (one process)', () => {
  it('runs a job on the first runDue, then not again until intervalMs of the clock has passed', async () => {
    const clock = new ManualClock(START);
    const job = countingJob('every-minute');
    const scheduler = new Scheduler([job], new SoleLeadership(), clock);

    expect(await scheduler.runDue()).toEqual(['every-minute']);
    expect(job.runs).toEqual([START]);
    expect(await scheduler.runDue()).toEqual([]);
    clock.advance(MINUTE_MS - 1);
    expect(await scheduler.runDue()).toEqual([]);
    expect(job.runs).toHaveLength(1);

    clock.advance(1);
    expect(await scheduler.runDue()).toEqual(['every-minute']);
    expect(job.runs).toEqual([START, START + MINUTE_MS]);
    expect(await scheduler.runDue()).toEqual([]);
    await scheduler.stop();
  });

  it('keeps each job on its own interval', async () => {
    const clock = new ManualClock(START);
    const fast = countingJob('fast', 10_000);
    const slow = countingJob('slow', MINUTE_MS);
    const scheduler = new Scheduler([fast, slow], new SoleLeadership(), clock);
    for (let i = 0; i < 7; i += 1) {
      await scheduler.runDue();
      clock.advance(10_000);
    }
    expect(fast.runs).toHaveLength(7);
    expect(slow.runs).toEqual([START, START + MINUTE_MS]);
    await scheduler.stop();
  });

  it('logs a failing job and still runs the others, and retries it only on its next interval', async () => {
    const clock = new ManualClock(START);
    const warn = vi.fn();
    let rejected = 0;
    let threw = 0;
    const rejecting: Job = {
      name: 'rejects',
      intervalMs: MINUTE_MS,
      async run() {
        rejected += 1;
        throw new Error('boom');
      },
    };
    // Not an async function: it throws before returning a promise.
    const throwing: Job = {
      name: 'throws',
      intervalMs: MINUTE_MS,
      run() {
        threw += 1;
        throw new Error('sync boom');
      },
    };
    const after = countingJob('after');
    const scheduler = new Scheduler([rejecting, throwing, after], new SoleLeadership(), clock, { warn });

    const ran = await scheduler.runDue();
    expect(ran).toContain('after');
    expect(after.runs).toEqual([START]);
    expect([rejected, threw]).toEqual([1, 1]);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ job: 'rejects' }), 'job failed');
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ job: 'throws' }), 'job failed');

    expect(await scheduler.runDue()).toEqual([]);
    clock.advance(MINUTE_MS);
    await scheduler.runDue();
    expect([rejected, threw, after.runs.length]).toEqual([2, 2, 2]);
    await scheduler.stop();
  });

  it('stop() waits for a running job, then releases leadership, and runs nothing afterwards', async () => {
    const clock = new ManualClock(START);
    const events: string[] = [];
    const gate = deferred();
    const started = deferred();
    const slow: Job = {
      name: 'slow',
      intervalMs: MINUTE_MS,
      async run() {
        events.push('job started');
        started.resolve();
        await gate.promise;
        events.push('job finished');
      },
    };
    const leadership: Leadership = {
      tryLead: async () => true,
      leads: () => true,
      release: async () => {
        events.push('released');
      },
    };
    const scheduler = new Scheduler([slow], leadership, clock);
    const tick = scheduler.runDue();
    await started.promise;

    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
      events.push('stopped');
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);

    gate.resolve();
    await stopping;
    await tick;
    expect(events).toEqual(['job started', 'job finished', 'released', 'stopped']);

    clock.advance(MINUTE_MS);
    expect(await scheduler.runDue()).toEqual([]);
  });

  it('stop() during a leadership check neither starts the job afterwards nor releases before the check ends', async () => {
    const clock = new ManualClock(START);
    const events: string[] = [];
    const lead = deferred<boolean>();
    const asked = deferred();
    const job: Job = {
      name: 'job',
      intervalMs: MINUTE_MS,
      async run() {
        events.push('job ran');
      },
    };
    const leadership: Leadership = {
      leads: () => false,
      tryLead: async () => {
        events.push('tryLead');
        asked.resolve();
        const ok = await lead.promise;
        events.push('lead taken');
        return ok;
      },
      release: async () => {
        events.push('released');
      },
    };
    const scheduler = new Scheduler([job], leadership, clock);
    const tick = scheduler.runDue();
    await asked.promise;

    const stopping = scheduler.stop().then(() => events.push('stopped'));
    await new Promise((r) => setTimeout(r, 20));
    lead.resolve(true);
    await stopping;
    await tick;
    // Releasing while tryLead is still under way would let it take a lock nobody ever frees.
    expect(events).toEqual(['tryLead', 'lead taken', 'released', 'stopped']);
  });

  it('a job in a lane of its own (a hanging venue) holds no other job, and never runs beside itself', async () => {
    const clock = new ManualClock(START);
    const warn = vi.fn();
    const gate = deferred();
    let slowRuns = 0;
    // a venue that hangs until its timeout: liquidations and matching must keep their cadence
    const hanging: Job = {
      name: 'hanging',
      intervalMs: 10_000,
      lane: 'venues',
      async run() {
        slowRuns += 1;
        await gate.promise;
      },
    };
    const risk = countingJob('risk', 10_000);
    const scheduler = new Scheduler([hanging, risk], new SoleLeadership(), clock, { warn });
    scheduler.start(5);
    await vi.waitFor(() => expect(risk.runs).toHaveLength(1), { timeout: 2_000, interval: 5 });
    for (let i = 2; i <= 4; i += 1) {
      clock.advance(10_000);
      await vi.waitFor(() => expect(risk.runs).toHaveLength(i), { timeout: 2_000, interval: 5 });
    }
    expect(slowRuns).toBe(1);
    expect(warn).not.toHaveBeenCalled();
    // still running long after its time: said once, naming the job
    clock.advance(5 * MINUTE_MS);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.objectContaining({ job: 'hanging', lane: 'venues' }), 'job still running; the other jobs of its lane wait for it'), { timeout: 2_000, interval: 5 });
    await new Promise((r) => setTimeout(r, 30));
    expect(warn).toHaveBeenCalledTimes(1);

    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false); // stop() waits for the hanging run too
    gate.resolve();
    await stopping;
    expect(slowRuns).toBe(1);
  });

  it('jobs of one lane run one after another, never side by side (they may lock the same books)', async () => {
    const clock = new ManualClock(START);
    const gate = deferred();
    const events: string[] = [];
    const settlement: Job = {
      name: 'settlement',
      intervalMs: MINUTE_MS,
      async run() {
        events.push('settlement started');
        await gate.promise;
        events.push('settlement ended');
      },
    };
    const sweep: Job = { name: 'sweep', intervalMs: MINUTE_MS, run: async () => void events.push('sweep ran') };
    const scheduler = new Scheduler([settlement, sweep], new SoleLeadership(), clock);
    scheduler.start(5);
    await vi.waitFor(() => expect(events).toEqual(['settlement started']), { timeout: 2_000, interval: 5 });
    await new Promise((r) => setTimeout(r, 30));
    expect(events).toEqual(['settlement started']);
    gate.resolve();
    await vi.waitFor(() => expect(events).toEqual(['settlement started', 'settlement ended', 'sweep ran']), { timeout: 2_000, interval: 5 });
    await scheduler.stop();
  });

  it('start-up runs the first PM ingest before any other job, then ticks (settlement ran beside it)', async () => {
    const clock = new ManualClock(START);
    const gate = deferred();
    const events: string[] = [];
    const ingest: Job = {
      name: 'pm-ingest',
      intervalMs: 15_000,
      lane: 'pm-venues',
      async run() {
        events.push('ingest started');
        await gate.promise;
        events.push('ingest ended');
      },
    };
    const settlement: Job = { name: 'pm-settlement', intervalMs: MINUTE_MS, run: async () => void events.push('settlement ran') };
    const scheduler = new Scheduler([settlement, ingest], new SoleLeadership(), clock);
    const said: string[] = [];
    const started = startJobs(scheduler, (line) => said.push(line), { warn: vi.fn() }, 5);
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['ingest started']);
    gate.resolve();
    await started;
    await vi.waitFor(() => expect(events).toEqual(['ingest started', 'ingest ended', 'settlement ran']), { timeout: 2_000, interval: 5 });
    expect(said).toEqual(['prediction markets: loading…', 'prediction markets: lists and price history served; ready']);
    await scheduler.stop();
  });

  it('runNow runs a job at once and puts it on its interval; a failed run rejects and is logged', async () => {
    const clock = new ManualClock(START);
    const warn = vi.fn();
    const job = countingJob('first-ingest');
    const failing: Job = { name: 'fails', intervalMs: MINUTE_MS, run: () => Promise.reject(new Error('venue down')) };
    const scheduler = new Scheduler([job, failing], new SoleLeadership(), clock, { warn });
    expect(await scheduler.runNow('first-ingest')).toBe(true);
    expect(await scheduler.runNow('unknown')).toBe(false);
    await expect(scheduler.runNow('fails')).rejects.toThrow('venue down');
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ job: 'fails' }), 'job failed');
    expect(await scheduler.runDue()).toEqual([]);
    clock.advance(MINUTE_MS);
    expect(await scheduler.runDue()).toEqual(['first-ingest', 'fails']);
    expect(job.runs).toEqual([START, START + MINUTE_MS]);
    await scheduler.stop();
  });

  it('start() ticks on a timer until stop()', async () => {
    const clock = new ManualClock(START);
    const job = countingJob('ticked', 1);
    const scheduler = new Scheduler([job], new SoleLeadership(), clock);
    scheduler.start(5);
    await vi.waitFor(() => expect(job.runs.length).toBeGreaterThanOrEqual(1), { timeout: 2_000, interval: 5 });
    clock.advance(1);
    await vi.waitFor(() => expect(job.runs.length).toBeGreaterThanOrEqual(2), { timeout: 2_000, interval: 5 });
    await scheduler.stop();
    const count = job.runs.length;
    clock.advance(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(job.runs).toHaveLength(count);
  });
});

describe('Jobs that keep their schedule (restarts on one database)', () => {
  const HOUR_MS = 60 * MINUTE_MS;
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await freshDatabase();
  });
  afterAll(() => testDb?.drop());

  it('a restart waits out the interval since the last start anywhere; a job that does not keep it runs at once', async () => {
    const store = databaseJobSchedule(testDb.database.db);
    const clock = new ManualClock(START);
    const process = () => {
      const hourly = { ...countingJob('restart-hourly', HOUR_MS), keepsSchedule: true };
      const minutely = countingJob('restart-minutely');
      return { hourly, minutely, scheduler: new Scheduler([hourly, minutely], new SoleLeadership(), clock, undefined, undefined, store) };
    };
    const first = process();
    expect(await first.scheduler.runDue()).toEqual(['restart-hourly', 'restart-minutely']);
    await first.scheduler.stop();

    clock.advance(91_000); // restarted 91 s later (the hourly rank snapshots were taken twice)
    const second = process();
    expect(await second.scheduler.runDue()).toEqual(['restart-minutely']);
    clock.advance(HOUR_MS - 91_000 - 1);
    expect(await second.scheduler.runDue()).toEqual(['restart-minutely']);
    clock.advance(1);
    expect(await second.scheduler.runDue()).toEqual(['restart-hourly']);
    expect(second.hourly.runs).toEqual([START + HOUR_MS]);
    await second.scheduler.stop();

    // a start stamped ahead of the clock (the clock was set back) is no reason to wait until then
    clock.set(START - 10 * HOUR_MS);
    const third = process();
    expect(await third.scheduler.runDue()).toEqual(['restart-hourly', 'restart-minutely']);
    clock.advance(HOUR_MS - 1);
    expect(await third.scheduler.runDue()).toEqual(['restart-minutely']);
    await third.scheduler.stop();
  });

  it('runNow keeps the shared schedule too: a job started elsewhere within its interval waits', async () => {
    const store = databaseJobSchedule(testDb.database.db);
    const clock = new ManualClock(START);
    const hourly = () => ({ ...countingJob('runnow-hourly', HOUR_MS), keepsSchedule: true });
    const first = hourly();
    const a = new Scheduler([first], new SoleLeadership(), clock, undefined, undefined, store);
    expect(await a.runNow('runnow-hourly')).toBe(true);
    await a.stop();

    clock.advance(MINUTE_MS);
    const second = hourly();
    const b = new Scheduler([second], new SoleLeadership(), clock, undefined, undefined, store);
    expect(await b.runNow('runnow-hourly')).toBe(false);
    expect(second.runs).toEqual([]);
    clock.advance(HOUR_MS - MINUTE_MS);
    expect(await b.runDue()).toEqual(['runnow-hourly']);
    expect(second.runs).toEqual([START + HOUR_MS]);
    await b.stop();
  });

  it('runs the job when the shared schedule cannot be read, and says so', async () => {
    const clock = new ManualClock(START);
    const warn = vi.fn();
    const broken: JobScheduleStore = {
      lastStart: () => Promise.reject(new Error('database gone')),
      started: () => Promise.reject(new Error('database gone')),
    };
    const job = { ...countingJob('unreadable', HOUR_MS), keepsSchedule: true };
    const scheduler = new Scheduler([job], new SoleLeadership(), clock, { warn }, undefined, broken);
    expect(await scheduler.runDue()).toEqual(['unreadable']);
    expect(warn.mock.calls.map((c) => c[1])).toEqual(['job schedule read failed; running the job', 'job schedule write failed']);
    expect(await scheduler.runDue()).toEqual([]);
    await scheduler.stop();
  });
});
