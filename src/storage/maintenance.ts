import { sql } from 'drizzle-orm';
import type { Queryable } from './db.js';

/**
 * Marks the space of dead row versions reusable (plain VACUUM: no lock against reads or writes,
 * files do not shrink but stop growing). For PGlite, which runs no autovacuum; tens of
 * milliseconds on a warm database (the first pass over a bloated one: a few hundred).
 */
export async function vacuumDatabase(db: Queryable): Promise<void> {
  await db.execute(sql`vacuum`);
}
