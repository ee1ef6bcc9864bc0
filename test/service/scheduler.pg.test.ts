import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/db.js';
import { ManualClock } from '../../src/util/clock.js';
import { AdvisoryLockLeadership, jobLockId, type Leadership } from '../../src/workers/leadership.js';
import { Scheduler, type Job } from '../../src/workers/scheduler.js';
import { databaseJobSchedule } from '../../src/storage/job-schedule-repo.js';
import { TEST_DATABASE_URL, freshDatabase, type TestDatabase } from '../support/db.js';
import { deferred } from '../support/deferred.js';

const MINUTE_MS = 60_000;
const START = Date.UTC(2026, 10, 22, 12, 0, 0);

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

  it('after a lost session takes every job’s lock back on the next tick, not when each comes due (up to 6 h with no leader)', async () => {
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
    // the fast job, still due, takes its lock again on a new session; the slow one, not due, too —
    // without running early
    expect(await a.runDue()).toEqual(['pg-gauge-fast']);
    expect(Object.fromEntries(reported)).toEqual({ 'pg-gauge-slow': true, 'pg-gauge-fast': true });
    expect(await lockHolders('pg-gauge-slow')).toHaveLength(1);
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
