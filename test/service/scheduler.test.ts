import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/storage/db.js';
import { ManualClock } from '../../src/util/clock.js';
import { AdvisoryLockLeadership, SoleLeadership, jobLockId, type Leadership } from '../../src/workers/leadership.js';
import { Scheduler, type Job, type JobScheduleStore } from '../../src/workers/scheduler.js';
import { databaseJobSchedule } from '../../src/storage/job-schedule-repo.js';
import { TEST_DATABASE_URL, freshDatabase, type TestDatabase } from '../support/db.js';

const MINUTE_MS = 60_000;
const START = Date.UTC(2026, 10, 22, 12, 0, 0);

function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

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

  it('a slow job holds neither the other jobs nor later passes, and never runs beside itself', async () => {
    const clock = new ManualClock(START);
    const gate = deferred();
    let slowRuns = 0;
    // a venue that hangs until its timeout: liquidations and matching must keep their cadence
    const hanging: Job = {
      name: 'hanging',
      intervalMs: 10_000,
      async run() {
        slowRuns += 1;
        await gate.promise;
      },
    };
    const risk = countingJob('risk', 10_000);
    const scheduler = new Scheduler([hanging, risk], new SoleLeadership(), clock);
    scheduler.start(5);
    await vi.waitFor(() => expect(risk.runs).toHaveLength(1), { timeout: 2_000, interval: 5 });
    for (let i = 2; i <= 4; i += 1) {
      clock.advance(10_000);
      await vi.waitFor(() => expect(risk.runs).toHaveLength(i), { timeout: 2_000, interval: 5 });
    }
    expect(slowRuns).toBe(1);

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

describe.skipIf(!TEST_DATABASE_URL)('Scheduler with advisory-lock leadership (two processes on PostgreSQL)', () => {
  let testDb: TestDatabase;
  let poolA: Database;
  let poolB: Database;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    testDb = await freshDatabase();
    poolA = testDb.database;
    poolB = await testDb.openAnother();
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await testDb?.drop();
  });

  /** Two "processes": each its own pool, leadership and scheduler, the same job list and clock. */
  function twoProcesses(jobName: string) {
    const clock = new ManualClock(START);
    const runsBy: Record<'A' | 'B', number[]> = { A: [], B: [] };
    const jobFor = (who: 'A' | 'B'): Job => ({
      name: jobName,
      intervalMs: MINUTE_MS,
      async run(nowMs) {
        runsBy[who].push(nowMs);
      },
    });
    const leaderA = new AdvisoryLockLeadership(poolA);
    const leaderB = new AdvisoryLockLeadership(poolB);
    const a = new Scheduler([jobFor('A')], leaderA, clock);
    const b = new Scheduler([jobFor('B')], leaderB, clock);
    cleanups.push(
      () => a.stop(),
      () => b.stop(),
    );
    const total = () => runsBy.A.length + runsBy.B.length;
    return { clock, runsBy, a, b, total };
  }

  /** Backend pids holding the advisory lock of a job. */
  async function lockHolders(jobName: string): Promise<number[]> {
    const session = (await poolB.dedicatedSession())!;
    try {
      const rows = await session.query<{ pid: number }>(
        `select pid from pg_locks
          where locktype = 'advisory' and granted and classid = 52483 and objid = $1::bigint::oid and objsubid = 2`,
        [jobLockId(jobName) >>> 0],
      );
      return rows.map((r) => r.pid);
    } finally {
      await session.release();
    }
  }

  it('runs the job exactly once per interval across both, and the other takes over when the leader stops', async () => {
    const { clock, runsBy, a, b, total } = twoProcesses('pg-once');
    for (let interval = 0; interval < 3; interval += 1) {
      const [ranA, ranB] = await Promise.all([a.runDue(), b.runDue()]);
      expect(ranA.length + ranB.length).toBe(1);
      // A second tick in the same interval runs nothing anywhere.
      const again = await Promise.all([a.runDue(), b.runDue()]);
      expect(again.flat()).toEqual([]);
      expect(total()).toBe(interval + 1);
      clock.advance(MINUTE_MS);
    }
    // One process held it throughout.
    const [leader, follower, leaderName, followerName] =
      runsBy.A.length > 0 ? [a, b, 'A', 'B'] as const : [b, a, 'B', 'A'] as const;
    expect(runsBy[leaderName]).toHaveLength(3);
    expect(runsBy[followerName]).toHaveLength(0);
    expect(await lockHolders('pg-once')).toHaveLength(1);

    // The follower's very next tick, at once: stop() has freed the lock, not merely closed the session.
    await leader.stop();
    expect(await follower.runDue()).toEqual(['pg-once']);
    expect(runsBy[followerName]).toEqual([START + 3 * MINUTE_MS]);
    clock.advance(MINUTE_MS);
    expect(await follower.runDue()).toEqual(['pg-once']);
    expect(await leader.runDue()).toEqual([]);
    expect(total()).toBe(5);
  });

  it('a takeover waits out the interval since the old leader started a job that keeps its schedule', async () => {
    const HOUR_MS = 60 * MINUTE_MS;
    const clock = new ManualClock(START);
    const runs: string[] = [];
    const hourly = (who: string): Job => ({ name: 'pg-takeover-hourly', intervalMs: HOUR_MS, keepsSchedule: true, run: async () => void runs.push(who) });
    const a = new Scheduler([hourly('A')], new AdvisoryLockLeadership(poolA), clock, undefined, undefined, databaseJobSchedule(poolA.db));
    const b = new Scheduler([hourly('B')], new AdvisoryLockLeadership(poolB), clock, undefined, undefined, databaseJobSchedule(poolB.db));
    cleanups.push(() => b.stop());
    expect(await a.runDue()).toEqual(['pg-takeover-hourly']);
    await a.stop();
    clock.advance(91_000);
    expect(await b.runDue()).toEqual([]);
    clock.advance(HOUR_MS - 91_000);
    expect(await b.runDue()).toEqual(['pg-takeover-hourly']);
    expect(runs).toEqual(['A', 'B']);
  });

  it('hands the job over when the leader’s dedicated session dies', async () => {
    const { clock, runsBy, a, b } = twoProcesses('pg-failover');
    expect(await a.runDue()).toEqual(['pg-failover']);
    expect(await b.runDue()).toEqual([]);
    const [pid] = await lockHolders('pg-failover');
    expect(pid).toBeDefined();

    // Kill A's lock session from B's pool (and wait up to 5 s for the backend to exit).
    const killer = (await poolB.dedicatedSession())!;
    await killer.query('select pg_terminate_backend($1, 5000)', [pid]);
    await killer.release();

    clock.advance(MINUTE_MS);
    const [ranA, ranB] = await Promise.all([a.runDue(), b.runDue()]);
    expect(ranA).toEqual([]);
    expect(ranB).toEqual(['pg-failover']);
    // A reconnects on later ticks but stays a follower; B keeps the job, once per interval.
    for (let i = 0; i < 2; i += 1) {
      clock.advance(MINUTE_MS);
      const ran = await Promise.all([a.runDue(), b.runDue()]);
      expect(ran).toEqual([[], ['pg-failover']]);
    }
    expect(runsBy.A).toEqual([START]);
    expect(runsBy.B).toEqual([START + MINUTE_MS, START + 2 * MINUTE_MS, START + 3 * MINUTE_MS]);
  });

  it('reports a lost leadership for every job once one job finds the session dead, not when each comes due (up to 6 h)', async () => {
    const clock = new ManualClock(START);
    const reported = new Map<string, boolean>();
    const observer = { leading: (job: string, leads: boolean) => reported.set(job, leads), ran: () => undefined };
    const jobs: Job[] = [
      { name: 'pg-gauge-slow', intervalMs: 6 * 60 * MINUTE_MS, run: async () => undefined },
      { name: 'pg-gauge-fast', intervalMs: MINUTE_MS, run: async () => undefined },
    ];
    const a = new Scheduler(jobs, new AdvisoryLockLeadership(poolA), clock, undefined, observer);
    cleanups.push(() => a.stop());
    await a.runDue();
    expect(Object.fromEntries(reported)).toEqual({ 'pg-gauge-slow': true, 'pg-gauge-fast': true });
    const [pid] = await lockHolders('pg-gauge-slow');
    const killer = (await poolB.dedicatedSession())!;
    await killer.query('select pg_terminate_backend($1, 5000)', [pid]);
    await killer.release();
    clock.advance(MINUTE_MS);
    await a.runDue(); // the fast job finds the session gone
    expect(reported.get('pg-gauge-fast')).toBe(false);
    clock.advance(1000);
    await a.runDue(); // the fast job, still due, takes its lock again on a new session; the slow one's is gone
    expect(Object.fromEntries(reported)).toEqual({ 'pg-gauge-slow': false, 'pg-gauge-fast': true });
  });

  it('release() has freed the locks when it returns (no wait for PostgreSQL to notice a closed connection)', async () => {
    const a = new AdvisoryLockLeadership(poolA);
    const b = new AdvisoryLockLeadership(poolB);
    cleanups.push(
      () => a.release(),
      () => b.release(),
    );
    // Closing the connection alone frees the lock a moment later; over 20 rounds that shows.
    for (let round = 0; round < 20; round += 1) {
      expect(await a.tryLead('pg-release')).toBe(true);
      expect(await b.tryLead('pg-release')).toBe(false);
      await a.release();
      expect(await b.tryLead('pg-release')).toBe(true);
      expect(await a.tryLead('pg-release')).toBe(false);
      await b.release();
    }
  });

  it('a leader stopped in the middle of a tick leaves no lock behind', async () => {
    const { b } = twoProcesses('pg-stop-midtick');
    const leaderA = new AdvisoryLockLeadership(poolA);
    const asked = deferred();
    // The real leadership, with a signal when the scheduler starts asking for the lock.
    const watched: Leadership = {
      tryLead: (job) => {
        asked.resolve();
        return leaderA.tryLead(job);
      },
      leads: (job) => leaderA.leads(job),
      release: () => leaderA.release(),
    };
    const ranA: number[] = [];
    const a = new Scheduler(
      [{ name: 'pg-stop-midtick', intervalMs: MINUTE_MS, run: async (now) => void ranA.push(now) }],
      watched,
      new ManualClock(START),
    );
    const tick = a.runDue();
    await asked.promise;
    await a.stop();
    await tick;
    expect(ranA).toEqual([]);
    expect(await lockHolders('pg-stop-midtick')).toEqual([]);
    expect(await b.runDue()).toEqual(['pg-stop-midtick']);
  });
});
if (!TEST_DATABASE_URL) {
  console.log('[scheduler] TEST_DATABASE_URL is not set: the two-process advisory-lock tests are skipped');
}
