import { sql } from 'drizzle-orm';
import type { Queryable } from './db.js';

/**
 * Marks the space of dead row versions in `pm_markets` reusable (plain VACUUM: no lock against
 * reads or writes; the file stops growing) and refreshes its statistics. For PGlite, which runs
 * no autovacuum: every PM ingest rewrites each market row, and the table grew ~28 MB an hour
 * around 1 MB of live rows. Only this table: the other tables hardly bloat (measured after a
 * soak), and a VACUUM fixes a table's row-count estimate, which on a table still growing (orders,
 * positions) turned the planner to worse plans — PGlite writes ran 30–40 % slower. Also
 * `equity_snapshots_hourly`, rewritten the same way and as steady in size.
 */
export async function vacuumRewrittenTables(db: Queryable): Promise<void> {
  await db.execute(sql`vacuum (analyze) pm_markets`);
  // the hourly equity values: every snapshot run rewrites each book's row and drops old hours (a steady size)
  await db.execute(sql`vacuum (analyze) equity_snapshots_hourly`);
}
