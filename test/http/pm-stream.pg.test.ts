import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { TEST_DATABASE_URL } from '../support/db.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { openStream } from '../support/sse.js';

describe.skipIf(!TEST_DATABASE_URL)('stream fan-out across API processes (PostgreSQL LISTEN/NOTIFY)', () => {
  let t: PmTestApp;
  beforeAll(async () => {
    t = await createPmApp();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('an event written by one process reaches the streams of another', async () => {
    const database = await t.testDb.openAnother();
    const other = await createTestApp({ testDb: { ...t.testDb, database }, clock: t.clock, config: { publicRpm: 100_000 } });
    try {
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      const s = await openStream((other.app.server.address() as { port: number }).port, '/api/prediction-markets/stream');
      expect(s.status).toBe(200);
      t.clock.advance(60_000);
      await t.ingest.run(t.clock.now());
      await s.waitFor(/event: deltas\n/);
      s.close();
    } finally {
      await other.app.close();
      await database.close();
    }
  }, 60_000);
});
if (!TEST_DATABASE_URL) console.log('pm-stream: cross-process fan-out test skipped (set TEST_DATABASE_URL to run it on PostgreSQL)');
