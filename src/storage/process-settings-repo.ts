import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** Records this process's settings under its connection name; drops rows older than a day of names no longer connected. */
export async function recordProcessSettings(db: Queryable, name: string, settings: Record<string, string>): Promise<void> {
  await db.execute(
    sql`insert into process_settings (name, settings) values (${name}, ${JSON.stringify(settings)}::jsonb)
        on conflict (name) do update set settings = excluded.settings, recorded_at = now()`,
  );
  await db.execute(
    sql`delete from process_settings where recorded_at < now() - interval '1 day'
        and name not in (select application_name from pg_stat_activity where datname = current_database() and application_name is not null)`,
  );
}

/** The recorded settings of these processes (those that recorded none — older versions — are left out). */
export async function processSettingsOf(db: Queryable, names: string[]): Promise<{ name: string; settings: Record<string, string> }[]> {
  if (names.length === 0) return [];
  return queryRows(
    db,
    sql`select name, settings from process_settings where name in (select jsonb_array_elements_text(${JSON.stringify(names)}::jsonb)) order by name`,
  );
}
