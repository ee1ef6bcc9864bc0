import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRUNE_BATCH_MAX, RETENTION_DAYS } from '../../src/ledger/run-manifest.js';
import { queryRows } from '../../src/storage/db.js';
import { buildJobs } from '../../src/workers/jobs.js';
import type { Job } from '../../src/workers/scheduler.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let jobs: Job[];
beforeAll(async () => {
  t = await createTestApp();
  jobs = buildJobs({ database: t.ctx.database, market: t.market, clock: t.clock, houseAgents: false });
}, 180_000);
afterAll(async () => t.close());

const job = (name: string) => jobs.find((j) => j.name === name);
const count = async (where: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(t.ctx.database.db, sql`select count(*)::int as n from ledger_events where ${where}`))[0]!.n;

describe('ledger retention', () => {
  it('deletes every row past the retention window in one run, in batches, however many there are', async () => {
    const { keyId } = await t.newKey();
    const old = new Date(t.clock.now() - (RETENTION_DAYS + 1) * 86_400_000).toISOString();
    const recent = new Date(t.clock.now() - 86_400_000).toISOString();
    const rows = (n: number, at: string) =>
      t.ctx.database.db.execute(sql`insert into ledger_events (id, key_id, method, endpoint, event_type, ledger_status, block_reasons, started_at)
        select gen_random_uuid(), ${keyId}, 'GET', '/api/agent/me', 'read', 'success', '{}', ${at}::timestamptz from generate_series(1, ${n})`);
    await rows(PRUNE_BATCH_MAX * 2 + 500, old); // more than one batch: an hourly single batch fell behind a busy key
    await rows(7, recent);
    await job('ledger-retention')!.run(t.clock.now());
    expect(await count(sql`key_id = ${keyId} and started_at < ${old}::timestamptz + interval '1 second'`)).toBe(0);
    expect(await count(sql`key_id = ${keyId}`)).toBe(7);
  });
});

describe('PGlite vacuum', () => {
  it('keeps pm_markets, rewritten by every ingest, from growing without bound (PGlite has no autovacuum); PostgreSQL needs no such job', async () => {
    if (t.ctx.database.kind !== 'pglite') {
      expect(job('pglite-vacuum')).toBeUndefined();
      return;
    }
    const vacuum = job('pglite-vacuum')!;
    const db = t.ctx.database.db;
    await db.execute(sql`insert into pm_markets (source, slug, market_id, title, category, kind, status, outcomes, volume, volume24h, liquidity,
        resolved_at_verified, coin_ids, topics, spark, updated_at)
      select 'polymarket', 'churn-' || g, 'm' || g, repeat('x', 200), 'crypto', 'binary', 'open', '[]'::jsonb, 0, 0, 0,
        false, '[]'::jsonb, '[]'::jsonb, '[]'::jsonb, now() from generate_series(1, 2000) g`);
    const size = async () => (await queryRows<{ s: number }>(db, sql`select pg_relation_size('pm_markets')::int as s`))[0]!.s;
    // what every PM ingest does: each market row rewritten
    const churn = async (times: number) => {
      for (let i = 0; i < times; i += 1) await db.execute(sql`update pm_markets set updated_at = now(), volume = volume + 1`);
    };
    await churn(5);
    await vacuum.run(t.clock.now());
    const settled = await size();
    for (let round = 0; round < 3; round += 1) {
      await churn(5);
      await vacuum.run(t.clock.now());
    }
    // without the vacuum each round of 5 rewrites adds about 5 table copies
    expect(await size()).toBeLessThanOrEqual(settled * 1.5);
  });

  it('keeps the hourly equity values, rewritten by every snapshot run, from growing without bound', async () => {
    if (t.ctx.database.kind !== 'pglite') {
      expect(job('pglite-vacuum')).toBeUndefined(); // PostgreSQL's autovacuum does it
      return;
    }
    const db = t.ctx.database.db;
    const { keyId } = await t.newKey();
    await db.execute(sql`insert into equity_snapshots_hourly (key_id, hour, usd_value, taken_at)
      select ${keyId}, timestamptz '2026-01-01' + g * interval '1 hour', 50000, now() from generate_series(1, 3000) g`);
    const size = async () => (await queryRows<{ s: number }>(db, sql`select pg_relation_size('equity_snapshots_hourly')::int as s`))[0]!.s;
    const churn = async (times: number) => {
      for (let i = 0; i < times; i += 1) await db.execute(sql`update equity_snapshots_hourly set usd_value = usd_value + 1, taken_at = now()`);
    };
    await churn(5);
    await job('pglite-vacuum')!.run(t.clock.now());
    const settled = await size();
    for (let round = 0; round < 3; round += 1) {
      await churn(5);
      await job('pglite-vacuum')!.run(t.clock.now());
    }
    expect(await size()).toBeLessThanOrEqual(settled * 1.5);
  });
});

describe('job lanes', () => {
  it('every job that touches books shares one lane; in live mode the PM ingest waits on the venues in a lane of its own', () => {
    const lanes = (kind: string) =>
      new Map(
        buildJobs({ database: t.ctx.database, market: t.market, clock: t.clock, houseAgents: false, config: { simSeed: 'lanes', simProfile: 'realistic', marketData: { kind } } }).map((j) => [
          j.name,
          j.lane ?? 'main',
        ]),
      );
    const live = lanes('live');
    expect(live.get('pm-ingest')).toBe('pm-venues');
    expect(new Set([...live].filter(([name]) => name !== 'pm-ingest').map(([, lane]) => lane))).toEqual(new Set(['main']));
    expect(new Set(lanes('sim').values())).toEqual(new Set(['main'])); // simulated venues answer at once
  });
});

