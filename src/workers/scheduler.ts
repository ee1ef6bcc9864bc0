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
 * that job; each job runs on its own (never beside itself, never waiting for another).
 * `runDue()` is the whole step, so tests drive it with a manual clock.
 */
export class Scheduler {
  private readonly nextAt = new Map<string, number>();
  /** The pass under way (or the last one): passes never overlap, and stop() waits for it. */
  private pass: Promise<unknown> = Promise.resolve();
  /** Each job's run under way: a job never overlaps itself; stop() waits for every one. */
  private readonly running = new Map<string, Promise<void>>();
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

  /**
   * Runs every due job this process leads and waits for them; returns the names of the jobs it
   * started. A job still running from an earlier pass is not started again (nor waited for).
   */
  async runDue(): Promise<string[]> {
    const started = await this.queuePass(() => this.startDue());
    await Promise.all(started.map((s) => s.done));
    return started.map((s) => s.name);
  }

  /**
   * Runs one job now if this process leads it and it is due by the shared schedule, then on its
   * interval: start-up uses it to load data before the first regular tick. True when it ran;
   * rejects with the job's error when the run failed.
   */
  async runNow(name: string): Promise<boolean> {
    const run = await this.queuePass(async () => {
      const job = this.jobs.find((j) => j.name === name);
      if (!job || this.stopped || this.running.has(job.name) || !(await this.leadership.tryLead(job.name))) return null;
      const now = this.clock.now();
      const sharedNext = await this.sharedNextAt(job, now);
      if (sharedNext > now) {
        this.nextAt.set(job.name, sharedNext);
        return null;
      }
      // wrapped: an async function returning the run itself would wait for it inside the pass
      return { done: this.launch(job, now) };
    });
    if (!run) return false;
    await run.done;
    return true;
  }

  /** Passes (due checks, leadership, shared schedule) never overlap; the runs they start do. */
  private queuePass<T>(pass: () => Promise<T>): Promise<T> {
    const result = this.pass.then(pass);
    this.pass = result.catch(() => undefined);
    return result;
  }

  private async startDue(): Promise<Array<{ name: string; done: Promise<unknown> }>> {
    const started: Array<{ name: string; done: Promise<unknown> }> = [];
    for (const job of this.jobs) {
      // Requests that arrived meanwhile go first: due jobs never start back to back in one stretch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.stopped) break;
      const now = this.clock.now();
      if (this.running.has(job.name) || now < (this.nextAt.get(job.name) ?? 0)) {
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
      // a failed run is logged and observed by launch; the pass only waits for it to end
      started.push({ name: job.name, done: this.launch(job, now).catch(() => undefined) });
    }
    return started;
  }

  /**
   * Starts one run, on its own: a slow job (a venue that hangs until its timeout, a scorecard
   * pass over every agent) holds neither the others nor the next pass — liquidations and the
   * resting-order matcher keep their cadence. Resolves when the run ends; rejects if it failed.
   */
  private launch(job: Job, now: number): Promise<void> {
    const dueAtMs = this.nextAt.get(job.name) ?? now;
    this.nextAt.set(job.name, now + job.intervalMs);
    const run = (async () => {
      await this.recordStart(job, now);
      try {
        // Inside the try, a job that throws before returning its promise is caught too.
        await job.run(now);
      } catch (error) {
        this.log?.warn({ err: error, job: job.name }, 'job failed');
        this.observer?.ran({ job: job.name, dueAtMs, startedAtMs: now, durationMs: this.clock.now() - now, ok: false });
        throw error;
      }
      this.observer?.ran({ job: job.name, dueAtMs, startedAtMs: now, durationMs: this.clock.now() - now, ok: true });
    })();
    const tracked = run.catch(() => undefined).finally(() => this.running.delete(job.name));
    this.running.set(job.name, tracked);
    return run;
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
      // waits for the pass only, not for the runs it started
      if (busy) return;
      busy = true;
      void this.queuePass(() => this.startDue())
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, tickMs);
    this.timer.unref();
  }

  /**
   * Stops ticking, waits for the pass under way (a leadership check may be taking a lock) and
   * every running job, and only then gives up leadership, so no lock outlives the stop.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
    await Promise.all(this.running.values());
    await this.leadership.release();
  }
}
