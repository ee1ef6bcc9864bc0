import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** The market settings recorded by the processes of this database (null before the first). */
export async function readMarketIdentity(db: Queryable): Promise<Record<string, string> | null> {
  const [row] = await queryRows<{ identity: Record<string, string> }>(db, sql`select identity from market_identity where id = 1`);
  return row?.identity ?? null;
}

export async function recordMarketIdentity(db: Queryable, identity: Record<string, string>): Promise<void> {
  await db.execute(
    sql`insert into market_identity (id, identity) values (1, ${JSON.stringify(identity)}::jsonb)
        on conflict (id) do update set identity = excluded.identity, recorded_at = now()`,
  );
}
