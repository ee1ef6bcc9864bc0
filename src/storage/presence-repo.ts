import { sql } from 'drizzle-orm';
import type { Queryable } from './db.js';

/** NOTIFY channel on which the processes sharing a PostgreSQL database say they are there. */
export const PROCESS_PRESENCE_CHANNEL = 'paper_processes';

export async function notifyPresence(db: Queryable, payload: string): Promise<void> {
  await db.execute(sql`select pg_notify(${PROCESS_PRESENCE_CHANNEL}, ${payload})`);
}
