import { sql, type SQL } from 'drizzle-orm';

/**
 * The condition of a capped delta poll (src/domain/delta-polling.ts) on `column`: changed at or
 * after `since`, and before the end of the millisecond of the `cap`-th oldest such change among
 * `rows` (a query giving `at` and `id` of the same rows); no upper end when there are fewer.
 */
export function deltaWindow(column: SQL, since: Date, cap: number, rows: SQL): SQL {
  const from = since.toISOString();
  return sql`(${column} >= ${from}::timestamptz and ${column} < coalesce((
      select date_trunc('milliseconds', r.at) + interval '1 millisecond' from (${rows}) r
      where r.at >= ${from}::timestamptz order by r.at, r.id offset ${cap - 1} limit 1), 'infinity'::timestamptz))`;
}
