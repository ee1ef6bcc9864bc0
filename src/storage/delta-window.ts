import { sql, type SQL } from 'drizzle-orm';

/**
 * The condition of a capped delta poll (src/domain/delta-polling.ts) on `column`: changed at or
 * after `since`, and before the millisecond of the (`cap`+1)-th oldest such change among `rows`
 * (a query giving `at` and `id` of the same rows), so at most `cap` rows and never part of a
 * millisecond. Only when more than `cap` changes share the first millisecond does that one come
 * whole (more than `cap` rows: else no poll could get past it). No upper end when `cap` or fewer.
 * One ordered scan of at most `cap`+1 rows gives both ends (its first and last row).
 */
export function deltaWindow(column: SQL, since: Date, cap: number, rows: SQL): SQL {
  const from = since.toISOString();
  return sql`(${column} >= ${from}::timestamptz and ${column} < coalesce((
      select case when date_trunc('milliseconds', max(n.at)) > date_trunc('milliseconds', min(n.at))
                  then date_trunc('milliseconds', max(n.at))
                  else date_trunc('milliseconds', max(n.at)) + interval '1 millisecond' end
      from (select r.at from (${rows}) r where r.at >= ${from}::timestamptz order by r.at, r.id limit ${cap + 1}) n
      having count(*) > ${cap}), 'infinity'::timestamptz))`;
}
