import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** NOTIFY channel on which the processes sharing a PostgreSQL database say they are there. */
export const PROCESS_PRESENCE_CHANNEL = 'paper_processes';

export async function notifyPresence(db: Queryable, payload: string): Promise<void> {
  await db.execute(sql`select pg_notify(${PROCESS_PRESENCE_CHANNEL}, ${payload})`);
}

/** What a server process names its PostgreSQL connections: `paper-arena <role> <pid>@<host>` (pg_stat_activity shows it). */
export const PROCESS_NAME_PREFIX = 'paper-arena ';

/** The other server processes connected to this database now (their connection names; the CLI's are unnamed). */
export async function otherProcessNames(db: Queryable, own: string): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select distinct application_name as name from pg_stat_activity
        where datname = current_database() and application_name like ${`${PROCESS_NAME_PREFIX}%`} and application_name <> ${own}`,
  );
  return rows.map((r) => r.name).sort();
}
