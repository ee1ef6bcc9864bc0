import { createHash } from 'node:crypto';
import type { Database, DedicatedSession } from '../storage/db.js';

/** Decides whether this process runs a given periodic job now. */
export interface Leadership {
  tryLead(job: string): Promise<boolean>;
  /** Whether this process leads the job as far as it knows, without a round trip (a lost session shows once a tryLead finds it). */
  leads(job: string): boolean;
  release(): Promise<void>;
}

/** One process owns the database (PGlite): it leads every job. */
export class SoleLeadership implements Leadership {
  async tryLead(): Promise<boolean> {
    return true;
  }
  leads(): boolean {
    return true;
  }
  async release(): Promise<void> {}
}

const LOCK_NAMESPACE = 52_483;
const UNLOCK_WAIT_MS = 1000;

export function jobLockId(job: string): number {
  return createHash('sha256').update(job).digest().readInt32BE(0);
}

/**
 * PostgreSQL advisory locks held on a dedicated session: the first process to take a job's
 * lock leads that job until it stops or its connection drops (PostgreSQL then frees the lock
 * and another process takes over on its next tick).
 *
 * Calls are serialized: release() waits for a tryLead() under way, so a lock taken while
 * releasing is released with the session instead of staying held by a forgotten connection.
 */
export class AdvisoryLockLeadership implements Leadership {
  private session: DedicatedSession | null = null;
  private readonly held = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly database: Database) {}

  tryLead(job: string): Promise<boolean> {
    return this.serialized(() => this.lead(job));
  }

  leads(job: string): boolean {
    return this.held.has(job);
  }

  /** Frees every lock now (not when PostgreSQL notices the closed connection), then closes the session. */
  release(): Promise<void> {
    return this.serialized(() => this.dropSession(true));
  }

  private serialized<T>(step: () => Promise<T>): Promise<T> {
    const result = this.queue.then(step);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async lead(job: string): Promise<boolean> {
    try {
      this.session ??= await this.database.dedicatedSession();
      if (!this.session) return true;
      if (this.held.has(job)) {
        // Proves the session (and so the lock) is still alive.
        await this.session.query('select 1');
        return true;
      }
      const [row] = await this.session.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
        LOCK_NAMESPACE,
        jobLockId(job),
      ]);
      if (row?.ok) this.held.add(job);
      return Boolean(row?.ok);
    } catch {
      // A broken session lost its locks with it: give up leadership and reconnect next time.
      await this.dropSession(false);
      return false;
    }
  }

  private async dropSession(unlock: boolean): Promise<void> {
    const session = this.session;
    const holding = this.held.size > 0;
    this.held.clear();
    this.session = null;
    if (!session) return;
    if (unlock && holding) {
      // Bounded: a hung connection must not hold up shutdown; closing it frees the locks anyway.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        session.query('select pg_advisory_unlock_all()'),
        new Promise((resolve) => {
          timer = setTimeout(resolve, UNLOCK_WAIT_MS);
        }),
      ]).catch(() => undefined);
      clearTimeout(timer);
    }
    await session.release().catch(() => undefined);
  }
}
