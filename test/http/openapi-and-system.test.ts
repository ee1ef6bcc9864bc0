import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentOpenApiDocument, SNAPSHOT_PATH } from '../../scripts/openapi-document.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { recordVenueAttempt } from '../../src/storage/pm-repo.js';
import { insertLedgerRows } from '../../src/storage/ledger-repo.js';
import { createPmApp } from '../support/pm-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('OpenAPI', () => {
  it('serves OpenAPI 3.1 with the contract version and the v1 lifecycle', async () => {
    const res = await t.app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.7.0');
    expect(doc.info.description).toContain('additive-only');
    expect(doc.paths['/api/agent/me'].get).toBeDefined();
    expect(doc.paths['/api/agent/ledger'].get.parameters.map((p: { name: string }) => p.name)).toContain('runId');
    // every keyed agent operation documents the trace headers it reads (contract §5.7); keyless ones do not
    const headersOf = (op: { parameters?: { in: string; name: string }[] }) => (op.parameters ?? []).filter((p) => p.in === 'header' && p.name.startsWith('x-service-')).map((p) => p.name);
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>)) {
      for (const op of Object.values(ops)) {
        if (path.startsWith('/api/agent/')) expect(headersOf(op), path).toEqual(['x-service-run-id', 'x-service-decision-id', 'x-service-strategy-label', 'x-service-confidence']);
        else expect(headersOf(op), path).toEqual([]);
      }
    }
    // The dataset publishes both of its forms and the paging headers (contract §4.2 rule 3).
    const dataset = doc.paths['/api/arena/decisions'].get.responses['200'];
    expect(Object.keys(dataset.content)).toEqual(['application/json', 'application/x-ndjson']);
    expect(Object.keys(dataset.headers)).toEqual(expect.arrayContaining(['X-Total-Count', 'X-Has-More', 'X-Next-Cursor', 'ETag']));
  });

  it('matches the committed snapshot (run `npm run openapi:snapshot` after an intended change)', async () => {
    const committed = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8'));
    expect(await currentOpenApiDocument()).toEqual(committed);
  });

  it('has an interactive docs page', async () => {
    const res = await t.app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

describe('health', () => {
  it('/healthz answers plain ok (liveness) while /readyz is 503 until PM lists and native price history are served', async () => {
    const health = await t.app.inject({ url: '/healthz' });
    expect(health.body).toBe('ok');
    expect(health.headers['content-type']).toContain('text/plain');
    const notYet = await t.app.inject({ url: '/readyz' });
    expect(notYet.statusCode).toBe(503);
    expect(notYet.json()).toMatchObject({ error: 'not_ready', waitingFor: ['pm_lists', 'pm_price_history:polymarket', 'pm_price_history:kalshi'] });
    // an api alone waits here for good: the message says who stores them
    expect(notYet.json().message).toContain('prediction markets are stored by the pm-ingest job of a worker or serve process');
  });

  it('/readyz answers 200 once the data is there', async () => {
    const pm = await createPmApp();
    try {
      const ready = await pm.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().status).toBe('ready');
      const events = await pm.get('/api/prediction-markets/events?status=open');
      expect(events.body.data.length).toBeGreaterThan(0);
    } finally {
      await pm.close();
    }
  });

  it('/readyz waits for a native venue\'s price history, but not once that venue\'s fetches fail (live mode, venue unreachable)', async () => {
    const pm = await createPmApp();
    try {
      const { db } = pm.ctx.database;
      await db.execute(sql`delete from pm_captures where source = 'kalshi'`);
      const waiting = await pm.app.inject({ url: '/readyz' });
      expect(waiting.statusCode).toBe(503);
      expect(waiting.json().waitingFor).toEqual(['pm_price_history:kalshi']);
      await recordVenueAttempt(db, 'kalshi', 'live', pm.clock.now(), 'fetch failed');
      const ready = await pm.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
    } finally {
      await pm.close();
    }
  });

  it('/readyz answers 503 while the database refuses writes (a full disk), 200 once a write lands again; a passing failure leaves it ready', async () => {
    let failure: Error | null = Object.assign(new Error('could not extend file "base/5/16384": No space left on device'), { code: '53100' });
    let database: TestApp['ctx']['database'] | null = null;
    const pm = await createPmApp({
      ledgerStore: { insert: async (rows) => (failure ? Promise.reject(failure) : insertLedgerRows(database!.db, rows)) },
    });
    database = pm.ctx.database;
    try {
      expect((await pm.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      const { key } = await pm.newKey();
      const call = () => pm.app.inject({ url: '/api/agent/me', headers: { authorization: `Bearer ${key}` } });
      await call();
      await pm.ctx.ledger.flush();
      const refused = await pm.app.inject({ url: '/readyz' });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ error: 'not_ready', waitingFor: ['database_writes'] });
      expect(refused.json().message).toContain('the database refuses writes');
      failure = null;
      // the probe itself tries the pending rows: no traffic is needed to find the database writable again
      expect((await pm.app.inject({ url: '/readyz' })).statusCode).toBe(200);

      // a pool that timed out, a failover: the writer retries, but the process stays ready
      failure = new Error('timeout exceeded when trying to connect');
      await call();
      await pm.ctx.ledger.flush();
      expect(pm.ctx.ledger.recording).toBe(false);
      expect((await pm.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      failure = null;
    } finally {
      await pm.close();
    }
  });

  it('/readyz answers 503 when the database is gone', async () => {
    const other = await createTestApp();
    await other.testDb.database.close();
    const ready = await other.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error).toBe('not_ready');
    await other.app.close();
    await other.testDb.drop().catch(() => undefined);
  });
});
