import { sql } from 'drizzle-orm';
import type { CandleRange } from '../domain/candles.js';
import type { Coin } from '../marketdata/coins.js';
import type { PackedBarRow } from '../marketdata/sim/bar-book.js';
import type { MarketState } from '../marketdata/sim/state.js';
import { queryRows, type Db, type Queryable } from './db.js';
import type { SimCheckpoint, SimCheckpointMeta, SimStore } from './sim-store.js';

/** Replaces the stored coin universe with the given one (one statement per batch). */
export async function upsertCoins(db: Db, coins: readonly Coin[]): Promise<void> {
  await db.transaction(async (tx) => {
    // Processes starting together take turns (else the later insert hits the earlier one's rows).
    await tx.execute(sql`lock table coins in exclusive mode`);
    await tx.execute(sql`delete from coins`);
    for (let i = 0; i < coins.length; i += 500) {
      const rows = coins.slice(i, i + 500).map(
        (c) => sql`(${c.coinId}, ${c.slug}, ${c.symbol}, ${c.name}, ${c.rank}, ${`{${c.categories.map((x) => JSON.stringify(x)).join(',')}}`}::text[], ${c.circulatingSupply})`,
      );
      await tx.execute(sql`insert into coins (coin_id, slug, symbol, name, rank, categories, circulating_supply) values ${sql.join(rows, sql`, `)}`);
    }
  });
}


function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  throw new TypeError('bytea column did not come back as bytes');
}

async function loadSimCheckpoint(db: Queryable): Promise<SimCheckpoint | null> {
  const [meta] = await queryRows<{ seed: string; profile: string; universe_hash: string; state: MarketState }>(
    db,
    sql`select seed, profile, universe_hash, state from sim_checkpoint where id = 1`,
  );
  if (!meta) return null;
  const bars = await queryRows<{ range: CandleRange; open_time: string | number; data: unknown }>(
    db,
    sql`select range, open_time, data from sim_bars`,
  );
  return {
    seed: meta.seed,
    profile: meta.profile,
    universeHash: meta.universe_hash,
    state: meta.state,
    rows: bars.map((b) => ({ range: b.range, openTime: Number(b.open_time), data: toBytes(b.data) })),
  };
}

/**
 * Stores the state and the bars folded up to it in one transaction, so a restart always
 * resumes from a state that matches its bars; rows older than each range's window go.
 */
async function saveSimCheckpoint(
  db: Db,
  meta: SimCheckpointMeta,
  state: MarketState,
  rows: readonly PackedBarRow[],
  windowStarts: Record<CandleRange, number>,
  options: { replaceAll?: boolean } = {},
): Promise<void> {
  await db.transaction(async (tx) => {
    if (options.replaceAll) await tx.execute(sql`delete from sim_bars`);
    for (let i = 0; i < rows.length; i += 100) {
      const values = rows.slice(i, i + 100).map((r) => sql`(${r.range}, ${r.openTime}, ${Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength)})`);
      await tx.execute(
        sql`insert into sim_bars (range, open_time, data) values ${sql.join(values, sql`, `)}
            on conflict (range, open_time) do update set data = excluded.data`,
      );
    }
    for (const [range, start] of Object.entries(windowStarts)) {
      await tx.execute(sql`delete from sim_bars where range = ${range} and open_time < ${start}`);
    }
    await tx.execute(
      sql`insert into sim_checkpoint (id, seed, profile, universe_hash, minute_index, state, updated_at)
          values (1, ${meta.seed}, ${meta.profile}, ${meta.universeHash}, ${state.minuteIndex}, ${JSON.stringify(state)}::jsonb, now())
          on conflict (id) do update set seed = excluded.seed, profile = excluded.profile, universe_hash = excluded.universe_hash,
            minute_index = excluded.minute_index, state = excluded.state, updated_at = excluded.updated_at`,
    );
  });
}

/** The checkpoint in PostgreSQL tables, shared by every process of a deployment. */
export function sqlSimStore(db: Db): SimStore {
  return {
    load: () => loadSimCheckpoint(db),
    save: (meta, state, rows, windowStarts, options) => saveSimCheckpoint(db, meta, state, rows, windowStarts, options),
  };
}
