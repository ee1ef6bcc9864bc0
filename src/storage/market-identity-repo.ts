import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** The settings recorded under `hash`, or null when none were. */
export async function readMarketIdentity(db: Queryable, hash: string): Promise<Record<string, string> | null> {
  const [row] = await queryRows<{ identity: Record<string, string> }>(db, sql`select identity from market_identity where hash = ${hash}`);
  return row?.identity ?? null;
}

export async function recordMarketIdentity(db: Queryable, hash: string, identity: Record<string, string>): Promise<void> {
  await db.execute(
    sql`insert into market_identity (hash, identity) values (${hash}, ${JSON.stringify(identity)}::jsonb)
        on conflict (hash) do update set recorded_at = now()`,
  );
}
