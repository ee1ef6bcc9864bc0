import { sql } from 'drizzle-orm';
import { queryRows, type Queryable, type Tx } from './db.js';

export interface HouseAgentRow {
  strategy: string;
  keyId: number;
  lastStepTick: number | null;
}

/** Every house agent whose key is still active (a revoked house key trades no more). */
export async function listHouseAgents(db: Queryable): Promise<HouseAgentRow[]> {
  const rows = await queryRows<{ strategy: string; keyId: number; lastStepTick: string | number | null }>(
    db,
    sql`select h.strategy, h.key_id as "keyId", h.last_step_tick as "lastStepTick"
        from house_agents h join api_keys k on k.id = h.key_id where k.revoked_at is null order by h.strategy`,
  );
  return rows.map((r) => ({ ...r, lastStepTick: r.lastStepTick === null ? null : Number(r.lastStepTick) }));
}

/** Every strategy that has a house key, revoked or not. */
export async function listHouseStrategies(db: Queryable): Promise<string[]> {
  const rows = await queryRows<{ strategy: string }>(db, sql`select strategy from house_agents`);
  return rows.map((r) => r.strategy);
}

/** Key ids of every house agent (revoked or not): the board marks them `source: demo`. */
export async function houseKeyIds(db: Queryable): Promise<Set<number>> {
  const rows = await queryRows<{ keyId: number }>(db, sql`select key_id as "keyId" from house_agents`);
  return new Set(rows.map((r) => Number(r.keyId)));
}

/**
 * Names `keyId` the key of `strategy` unless another process already did; false when it lost
 * (the caller then rolls its key back). Concurrent claimers wait on the primary key.
 */
export async function claimHouseAgent(tx: Tx, strategy: string, keyId: number): Promise<boolean> {
  const rows = await queryRows<{ strategy: string }>(
    tx,
    sql`insert into house_agents (strategy, key_id) values (${strategy}, ${keyId}) on conflict (strategy) do nothing returning strategy`,
  );
  return rows.length === 1;
}

export async function markHouseStep(db: Queryable, strategy: string, tick: number): Promise<void> {
  await db.execute(sql`update house_agents set last_step_tick = greatest(coalesce(last_step_tick, ${tick}), ${tick}) where strategy = ${strategy}`);
}

/** Keys of everyone but one owner (the demo key is minted only on a database without them). */
export async function countKeysExceptUser(db: Queryable, userId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from api_keys where user_id <> ${userId}`);
  return rows[0]?.n ?? 0;
}
