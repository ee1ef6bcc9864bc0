import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** When a job last started on any process (ms), or null when it never ran. */
export async function readJobLastStart(db: Queryable, job: string): Promise<number | null> {
  const [row] = await queryRows<{ at: number }>(db, sql`select (extract(epoch from last_started_at) * 1000)::float8 as at from job_schedule where job = ${job}`);
  return row ? Number(row.at) : null;
}

export async function recordJobStart(db: Queryable, job: string, atMs: number): Promise<void> {
  await db.execute(
    sql`insert into job_schedule (job, last_started_at) values (${job}, ${new Date(atMs).toISOString()}::timestamptz)
        on conflict (job) do update set last_started_at = excluded.last_started_at`,
  );
}

/** The scheduler's shared job schedule (src/workers/scheduler.ts JobScheduleStore) on this database. */
export const databaseJobSchedule = (db: Queryable) => ({
  lastStart: (job: string) => readJobLastStart(db, job),
  started: (job: string, atMs: number) => recordJobStart(db, job, atMs),
});
