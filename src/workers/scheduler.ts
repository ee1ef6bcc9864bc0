import type { Clock } from '../util/clock.js';
import type { Leadership } from './leadership.js';

export interface Job {
  name: string;
  intervalMs: number;
  /** Must be idempotent: a job may run again after a crash or a leadership change. */
  run(nowMs: number): Promise<void>;
  /**
   * Its last start is shared (JobScheduleStore): a restart or a takeover by another process
   * waits out the interval since it instead of running it at once. For jobs whose every run
   * leaves a record (snapshots, scorecard runs) or costs a pass over everything (maintenance).
   */
  keepsSchedule?: boolean;
  /**
   * Jobs of one lane run one after another, as one process always ran them: they share the
   * database pool and may lock the same books (settlement and the risk sweep lock several at
   * once), so they never run beside each other. A job whose time goes to waiting on the network
   * (the PM venues) gets a lane of its own, so a hanging venue holds nothing else. Default `main`.
   */
  lane?: string;
}

/** Where jobs that keep their schedule record their starts (the database, shared by every process). */
export interface JobScheduleStore {
  lastStart(job: string): Promise<number | null>;
  started(job: string, atMs: number): Promise<void>;
}

export interface JobRun {
  job: string;
  /** When the run was due (its previous start plus the interval); the start for a first run. */
  dueAtMs: number;
  startedAtMs: number;
  durationMs: number;
  ok: boolean;
}

/** Told about leadership checks and finished runs (metrics, job-run records). */
export interface JobObserver {
  leading(job: string, leads: boolean): void;
  ran(run: JobRun): void;
}

export interface SchedulerLog {
  warn(obj: object, msg: string): void;
}

/** A job still running this long (and at least 10 of its intervals) is reported: its lane waits for it. */
const STUCK_AFTER_MS = 5 * 60_000;

/**
 * Runs each job every `intervalMs` of the injected clock, only while this process leads that
 * job. Each lane runs its due jobs one after another; lanes run independently (`Job.lane`).
 * `runDue()` is the whole step, so tests drive it with a manual clock.
 */
export class Scheduler {
  private readonly nextAt = new Map<string, number>();
  /** Each lane's step under way (or its last): a lane's steps never overlap, and stop() waits for every one. */
  private readonly laneTicks = new Map<string, Promise<unknown>>();
  /** The job each lane is running now, since when, and whether that run was reported as stuck. */
  private readonly current = new Map<string, { job: Job; sinceMs: number; reported: boolean }>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly jobs: Job[],
    private readonly leadership: Leadership,
    private readonly clock: Clock,
    private readonly log?: SchedulerLog,
    private readonly observer?: JobObserver,
    private readonly schedule?: JobScheduleStore,
  ) {}

  private get lanes(): string[] {
    return [...new Set(this.jobs.map(laneOf))];
  }

  /** Runs every due job this process leads (each lane in turn, lanes side by side); returns the names of the jobs it ran. */
  async runDue(): Promise<string[]> {
    const ran = await Promise.all(this.lanes.map((lane) => this.inLane(lane, () => this.step(lane))));
    return ran.flat();
  }

  /**
   * Runs one job now if this process leads it and it is due by the shared schedule (in turn with
   * its lane's steps), then on its interval: start-up uses it to load data before the first
   * regular tick. True when it ran; rejects with the job's error when the run failed.
   */
  runNow(name: string): Promise<boolean> {
    const job = this.jobs.find((j) => j.name === name);
    if (!job) return Promise.resolve(false);
    return this.inLane(laneOf(job), async () => {
      if (this.stopped || !(await this.leadership.tryLead(job.name))) return false;
      const now = this.clock.now();
      const sharedNext = await this.sharedNextAt(job, now);
      if (sharedNext > now) {
        this.nextAt.set(job.name, sharedNext);
        return false;
      }
      const failure = await this.runJob(job, now);
      if (failure) throw failure.error;
      return true;
    });
  }

  private inLane<T>(lane: string, step: () => Promise<T>): Promise<T> {
    const result = (this.laneTicks.get(lane) ?? Promise.resolve()).then(step);
    this.laneTicks.set(lane, result.catch(() => undefined));
    return result;
  }

  private async step(lane: string): Promise<string[]> {
    const ran: string[] = [];
    for (const job of this.jobs) {
      if (laneOf(job) !== lane) continue;
      // Requests that arrived meanwhile go first: due jobs never run back to back in one stretch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.stopped) break;
      const now = this.clock.now();
      if (now < (this.nextAt.get(job.name) ?? 0)) {
        // A lost session (found by any job) freed this job's lock too: take it back now, as a
        // standby would, not when the job next comes due — up to 6 h with no leader anywhere,
        // and the no-leader alert firing after every database blip. It still runs when due.
        this.observer?.leading(job.name, this.leadership.leads(job.name) || (await this.leadQuietly(job)));
        continue;
      }
      let leads: boolean;
      try {
        leads = await this.leadership.tryLead(job.name);
      } catch (error) {
        this.log?.warn({ err: error, job: job.name }, 'leadership check failed');
        continue;
      }
      this.observer?.leading(job.name, leads);
      if (!leads) continue;
      // stop() was called while leadership was being checked: start nothing new.
      if (this.stopped) break;
      const sharedNext = await this.sharedNextAt(job, now);
      if (sharedNext > now) {
        this.nextAt.set(job.name, sharedNext);
        continue;
      }
      await this.runJob(job, now);
      ran.push(job.name);
    }
    return ran;
  }

  /** tryLead for a job that is not due; a failure reads as not leading. */
  private async leadQuietly(job: Job): Promise<boolean> {
    try {
      return await this.leadership.tryLead(job.name);
    } catch {
      return false; // the due path says so when it matters
    }
  }

  /** One run: recorded, logged and observed; resolves with its error when it failed (never rejects). */
  private async runJob(job: Job, now: number): Promise<{ error: unknown } | null> {
    const lane = laneOf(job);
    const dueAtMs = this.nextAt.get(job.name) ?? now;
    this.nextAt.set(job.name, now + job.intervalMs);
    await this.recordStart(job, now);
    this.current.set(lane, { job, sinceMs: now, reported: false });
    let failure: { error: unknown } | null = null;
    try {
      // Inside the try, a job that throws before returning its promise is caught too.
      await job.run(now);
    } catch (error) {
      failure = { error };
      this.log?.warn({ err: error, job: job.name }, 'job failed');
    } finally {
      this.current.delete(lane);
    }
    this.observer?.ran({ job: job.name, dueAtMs, startedAtMs: now, durationMs: this.clock.now() - now, ok: failure === null });
    return failure;
  }

  /** A run that has not ended long after its time holds its whole lane: say so once. */
  private reportStuck(nowMs: number): void {
    for (const [lane, run] of this.current) {
      const runningForMs = nowMs - run.sinceMs;
      if (run.reported || runningForMs < Math.max(STUCK_AFTER_MS, 10 * run.job.intervalMs)) continue;
      run.reported = true;
      this.log?.warn({ job: run.job.name, lane, runningForMs }, 'job still running; the other jobs of its lane wait for it');
    }
  }

  /** When a job that keeps its schedule is next due by its last start anywhere (0: now, or unknown). */
  private async sharedNextAt(job: Job, now: number): Promise<number> {
    if (!job.keepsSchedule || !this.schedule) return 0;
    try {
      const last = await this.schedule.lastStart(job.name);
      // a start stamped ahead of this clock (a clock set back) says nothing about when it ran: run it
      return last === null || last > now ? 0 : last + job.intervalMs;
    } catch (error) {
      this.log?.warn({ err: error, job: job.name }, 'job schedule read failed; running the job');
      return 0;
    }
  }

  private async recordStart(job: Job, now: number): Promise<void> {
    if (!job.keepsSchedule || !this.schedule) return;
    try {
      await this.schedule.started(job.name, now);
    } catch (error) {
      this.log?.warn({ err: error, job: job.name }, 'job schedule write failed');
    }
  }

  start(tickMs = 1000): void {
    if (this.timer || this.stopped) return;
    const busy = new Set<string>();
    this.timer = setInterval(() => {
      this.reportStuck(this.clock.now());
      for (const lane of this.lanes) {
        if (busy.has(lane)) continue;
        busy.add(lane);
        void this.inLane(lane, () => this.step(lane))
          .catch(() => undefined)
          .finally(() => busy.delete(lane));
      }
    }, tickMs);
    this.timer.unref();
  }

  /**
   * Stops ticking, waits for every lane's step under way (a running job, or a leadership check
   * that may be taking a lock), and only then gives up leadership, so no lock outlives the stop.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.laneTicks.values());
    await this.leadership.release();
  }
}

const laneOf = (job: Job): string => job.lane ?? 'main';
