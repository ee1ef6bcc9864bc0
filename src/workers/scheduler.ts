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

/**
 * Runs each job every `intervalMs` of the injected clock, only while this process leads
 * that job. `runDue()` is the whole step, so tests drive it with a manual clock.
 */
export class Scheduler {
  private readonly nextAt = new Map<string, number>();
  /** The tick under way (or the last one): ticks never overlap, and stop() waits for it. */
  private tick: Promise<unknown> = Promise.resolve();
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

  /** Runs every due job this process leads; returns the names of the jobs it ran. */
  runDue(): Promise<string[]> {
    const step = this.tick.then(() => this.step());
    this.tick = step.catch(() => undefined);
    return step;
  }

  /**
   * Runs one job now if this process leads it (in turn with the ticks), then on its interval:
   * start-up uses it to load data before the first regular tick. True when it ran.
   */
  runNow(name: string): Promise<boolean> {
    const step = this.tick.then(async () => {
      const job = this.jobs.find((j) => j.name === name);
      if (!job || this.stopped || !(await this.leadership.tryLead(job.name))) return false;
      const now = this.clock.now();
      this.nextAt.set(job.name, now + job.intervalMs);
      await job.run(now);
      return true;
    });
    this.tick = step.catch(() => undefined);
    return step;
  }

  private async step(): Promise<string[]> {
    const ran: string[] = [];
    for (const job of this.jobs) {
      // Requests that arrived meanwhile go first: due jobs never run back to back in one stretch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.stopped) break;
      const now = this.clock.now();
      if (now < (this.nextAt.get(job.name) ?? 0)) {
        // the gauge of a job not due follows what this process knows: a lost session, found by any
        // job, shows at once (it said "leading" until this job next came due — up to 6 h)
        this.observer?.leading(job.name, this.leadership.leads(job.name));
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
      const dueAtMs = this.nextAt.get(job.name) ?? now;
      this.nextAt.set(job.name, now + job.intervalMs);
      await this.recordStart(job, now);
      let ok = true;
      try {
        // Inside the try, a job that throws before returning its promise is caught too.
        await job.run(now);
      } catch (error) {
        ok = false;
        this.log?.warn({ err: error, job: job.name }, 'job failed');
      }
      this.observer?.ran({ job: job.name, dueAtMs, startedAtMs: now, durationMs: this.clock.now() - now, ok });
      ran.push(job.name);
    }
    return ran;
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
    let busy = false;
    this.timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.runDue()
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, tickMs);
    this.timer.unref();
  }

  /**
   * Stops ticking, waits for the tick under way (a running job, or a leadership check that
   * may be taking a lock), and only then gives up leadership, so no lock outlives the stop.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tick;
    await this.leadership.release();
  }
}
