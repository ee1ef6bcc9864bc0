import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** The settings recorded under each of `hashes` (those never recorded are left out). */
export async function readMarketIdentities(db: Queryable, hashes: string[]): Promise<Map<string, Record<string, string>>> {
  if (hashes.length === 0) return new Map();
  const rows = await queryRows<{ hash: string; identity: Record<string, string> }>(
    db,
    sql`select hash, identity from market_identity where hash in (${sql.join(hashes.map((h) => sql`${h}`), sql`, `)})`,
  );
  return new Map(rows.map((r) => [r.hash, r.identity]));
}

export async function recordMarketIdentity(db: Queryable, hash: string, identity: Record<string, string>): Promise<void> {
  await db.execute(
    sql`insert into market_identity (hash, identity) values (${hash}, ${JSON.stringify(identity)}::jsonb)
        on conflict (hash) do update set recorded_at = now()`,
  );
}
