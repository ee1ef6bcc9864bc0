import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { recordDecision, settleDecision } from '../../src/storage/arena-decisions-repo.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { agentKey } from '../support/arena.js';
import { TEST_DATABASE_URL } from '../support/db.js';

describe.skipIf(!TEST_DATABASE_URL)('Decisions dataset: opportunities in record order (PostgreSQL)', { timeout: 120_000 }, () => {
  let t: TestApp;
  afterAll(() => t?.close(), 120_000);

  it('an opportunity whose lower id commits after a higher one is still served, once, in order', async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    const keyId = await agentKey(db, 'Recorder');
    const opportunity = (tx: Parameters<Parameters<typeof db.transaction>[0]>[0], slug: string) =>
      recordDecision(tx, { keyId, opportunityKind: 'abstained', reasonCode: 'no_edge', eventSlug: slug, createdAtMs: t.clock.now() }).then((r) => r.decisionUuid);
    // Settled decisions keep the cursor alive (one cursor pages both) while opportunities run out.
    for (const positionId of ['r1', 'r2', 'r3', 'r4']) {
      await db.transaction((tx) => recordDecision(tx, { keyId, opportunityKind: 'opened', venue: 'sim-pm', eventSlug: `m-${positionId}`, side: 'yes', marketProbability: 50, outcomesCount: 2, positionId, createdAtMs: t.clock.now() }));
      await db.transaction((tx) => settleDecision(tx, { positionId }, { label: 'won', pnlMusd: new Decimal(1), settledAtMs: t.clock.now() }));
    }
    const first = await db.transaction((tx) => opportunity(tx, 'o-first'));
    const served: string[] = [];
    const page = async (cursor: string | null) => {
      const body = (await t.app.inject({ url: `/api/arena/decisions?includeOpportunities=true&limit=1${cursor ? `&cursor=${cursor}` : ''}` })).json();
      served.push(...(body.opportunities as { decisionUuid: string }[]).map((o) => o.decisionUuid));
      return body.pagination.nextCursor as string | null;
    };
    let cursor = await page(null);

    // A draws its id first and commits last; B draws a higher id and commits (or waits) meanwhile.
    let releaseA!: () => void;
    const holdA = new Promise<void>((r) => (releaseA = r));
    let insertedA!: (uuid: string) => void;
    const aInserted = new Promise<string>((r) => (insertedA = r));
    const txA = db.transaction(async (tx) => {
      insertedA(await opportunity(tx, 'o-late-commit'));
      await holdA;
    });
    const uuidA = await aInserted;
    const txB = db.transaction((tx) => opportunity(tx, 'o-early-commit'));
    await new Promise((r) => setTimeout(r, 300)); // B commits now if nothing orders it behind A
    cursor = await page(cursor);
    releaseA();
    await txA;
    const uuidB = await txB;
    while (cursor) cursor = await page(cursor);
    expect(served).toEqual([first, uuidA, uuidB]);
  });
});
