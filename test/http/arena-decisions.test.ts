import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { CONTENT_HASH_FIELDS_V1 } from '../../src/arena/decisions.js';
import { Decimal } from '../../src/domain/money.js';
import { recordDecision, settleDecision, type DecisionInput } from '../../src/storage/arena-decisions-repo.js';
import { revokeKey } from '../../src/storage/keys-repo.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { agentKey } from '../support/arena.js';

/** An independent RFC 8785-style canonical form: sorted keys, no whitespace, JSON numbers. */
function jcs(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

describe('Decision records, the decisions dataset and artifacts', { timeout: 120_000 }, () => {
  let t: TestApp;
  let pub: number;
  let priv: number;
  let revoked: number;
  const uuids: Record<string, string> = {};
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.body ? safeJson(res.body) : null, raw: res.body, headers: res.headers };
  };
  const safeJson = (s: string) => {
    try {
      return JSON.parse(s);
    } catch {
      return null;
    }
  };
  const opened = (keyId: number, extra: Partial<DecisionInput> = {}): DecisionInput => ({
    keyId,
    opportunityKind: 'opened',
    venue: 'sim-pm',
    eventTitle: 'Will BTC close above 100k?',
    eventSlug: 'btc-100k',
    eventId: 41,
    side: 'yes',
    chosenOutcome: 'Yes',
    marketProbability: 60,
    agentForecastProbability: 70,
    referenceProbability: 58,
    referenceVenueCount: 2,
    outcomesCount: 2,
    stakeMusd: new Decimal(100),
    sharesMusd: new Decimal('166.66666667'),
    decisionContext: { v: 1, capturedAt: '2026-11-22T11:00:00.000Z', chosenProbability: 60, volume24h: 12000, liquidity: 5000, spread: 2, bestBid: 59, bestAsk: 61, referenceProbability: 58, referenceVenueCount: 2 },
    createdAtMs: t.clock.now(),
    ...extra,
  });

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    pub = await agentKey(db, 'Oracle', { model: 'model-7' });
    priv = await agentKey(db, 'Quiet', { public: false });
    revoked = await agentKey(db, 'Gone');
    const settle = (uuid: string, label: 'won' | 'lost' | 'void', pnl: number) =>
      db.transaction((tx) => settleDecision(tx, { decisionUuid: uuid }, { label, pnlMusd: new Decimal(pnl), settledAtMs: t.clock.now() + 60_000 }));
    await db.transaction(async (tx) => {
      uuids.won = (await recordDecision(tx, opened(pub, { positionId: '101', runId: 'run-1', decisionId: 'client-1' }))).decisionUuid;
      uuids.lost = (await recordDecision(tx, opened(pub, { positionId: '102', agentForecastProbability: null, marketProbability: 30 }))).decisionUuid;
      uuids.v2 = (
        await recordDecision(
          tx,
          opened(pub, { positionId: '103', provenance: { runtimeKind: 'byo_api', modelName: 'm7', providerVerified: true, executionPolicyVersion: 'fake' } }),
        )
      ).decisionUuid;
      uuids.void = (await recordDecision(tx, opened(pub, { positionId: '104' }))).decisionUuid;
      uuids.pending = (await recordDecision(tx, opened(pub, { positionId: '105' }))).decisionUuid;
      uuids.abstained = (
        await recordDecision(tx, { keyId: pub, opportunityKind: 'abstained', reasonCode: 'no_edge', agentForecastProbability: 50, marketProbability: 49, eventSlug: 'x', createdAtMs: t.clock.now() })
      ).decisionUuid;
      uuids.rejected = (
        await recordDecision(tx, { keyId: pub, opportunityKind: 'risk_rejected', reasonCode: 'stake_too_large', createdAtMs: t.clock.now(), decisionContext: { kind: 'opportunity_cohort', v: 1, capturedAt: '2026-11-22T11:00:00.000Z', universeSize: 40, horizon: null } })
      ).decisionUuid;
      uuids.private = (await recordDecision(tx, opened(priv, { positionId: '106' }))).decisionUuid;
      uuids.revoked = (await recordDecision(tx, opened(revoked, { positionId: '107' }))).decisionUuid;
      // A record written before the integer cut-over: its eventId was hashed as a "venue/slug" string.
      uuids.legacy = (await recordDecision(tx, opened(pub, { eventId: 'sim-pm/btc-100k' as unknown as number }))).decisionUuid;
      uuids.unattributed = (await recordDecision(tx, { keyId: null, opportunityKind: 'forecast_only', agentForecastProbability: 40, createdAtMs: t.clock.now() })).decisionUuid;
    });
    await settle(uuids.won!, 'won', 66.66666667);
    await settle(uuids.lost!, 'lost', -100);
    await settle(uuids.v2!, 'lost', -100);
    await settle(uuids.void!, 'void', 0);
    await settle(uuids.private!, 'won', 66.67);
    await settle(uuids.revoked!, 'won', 66.67);
    await revokeKey(db, revoked, new Date(t.clock.now()));
  }, 300_000);
  afterAll(() => t?.close(), 120_000);

  it('serves only resolved public-agent decisions, with Brier scores computed at settlement', async () => {
    const { status, body, headers } = await get('/api/arena/decisions');
    expect(status).toBe(200);
    expect(headers['cache-control']).toBe('public, max-age=300');
    expect(headers['x-total-count']).toBe('3');
    expect(headers['x-has-more']).toBe('false');
    expect(headers['x-next-cursor']).toBe('');
    expect(body).toMatchObject({
      schema: 'svc.agentDecisions.v1',
      datasetVersion: 'svc.agentDecisions.v2',
      executionPolicyVersion: 'paper_execution_v1',
      evaluationPolicyVersion: 'eval-1',
      count: 3,
      pagination: { limit: 50, cursor: null, nextCursor: null, hasMore: false, decisionsHasMore: false },
    });
    expect(body.opportunities).toBeUndefined();
    expect(body.decisions.map((d: { decisionUuid: string }) => d.decisionUuid)).toEqual([uuids.won, uuids.lost, uuids.v2]);
    const [won, lost] = body.decisions;
    // market 60 paid, won: (0.6 - 1)^2 = 0.16; own forecast 70: (0.7 - 1)^2 = 0.09; edge 70 - 60 = 10.
    expect(won).toMatchObject({
      agent: `a${pub}-oracle`,
      agentModel: 'model-7',
      question: 'Will BTC close above 100k?',
      side: 'yes',
      predictedProbability: 60,
      marketProbability: 60,
      agentForecastProbability: 70,
      edgePoints: 10,
      result: 'won',
      pnlMusd: 66.66666667,
      stakeMusd: 100,
      outcomesCount: 2,
      opportunityKind: 'opened',
      schemaVersion: 1,
    });
    expect(won.brier).toBeCloseTo(0.16, 12);
    expect(won.agentBrier).toBeCloseTo(0.09, 12);
    // Reference B9: the PM position id is an integer.
    expect(won.realizedPaperTrade).toMatchObject({ schema: 'svc.paperTradeResult.v1', positionId: 101, realizedPnlMusd: 66.66666667, costBasis: 'recorded_paper_pnl', includedInDecisionHash: false });
    expect(won.realizedPaperTrade.returnOnStakePct).toBeCloseTo(66.666667, 5);
    // market 30 paid and lost: 0.09; no forecast: agentBrier and edge stay null (never inferred).
    expect(lost.brier).toBeCloseTo(0.09, 12);
    expect(lost).toMatchObject({ agentForecastProbability: null, agentBrier: null, edgePoints: null, result: 'lost' });
    // Venue-owned context fields are withheld with the marker; ours stay.
    expect(won.entryContext).toMatchObject({ volume24h: null, liquidity: null, spread: null, bestBid: null, bestAsk: null, marketDataRedacted: true, chosenProbability: 60, referenceProbability: 58 });
    expect(JSON.stringify(body)).not.toContain('thesis');
  });

  it('pages with opaque cursors until nextCursor is null, and rejects bad cursors and handles', async () => {
    const first = await get('/api/arena/decisions?limit=2');
    expect(first.body.decisions).toHaveLength(2);
    expect(first.body.pagination.hasMore).toBe(true);
    expect(first.headers['x-has-more']).toBe('true');
    const cursor = first.body.pagination.nextCursor;
    expect(first.headers['x-next-cursor']).toBe(cursor);
    const second = await get(`/api/arena/decisions?limit=2&cursor=${cursor}`);
    expect(second.body.decisions.map((d: { decisionUuid: string }) => d.decisionUuid)).toEqual([uuids.v2]);
    expect(second.body.pagination).toMatchObject({ cursor, nextCursor: null, hasMore: false });
    expect(second.headers['x-total-count']).toBe('3');
    for (const bad of ['cursor=zzz', 'cursor=eyJ2IjoxfQ', 'cursor=%2F%2F', 'agent=bob', 'agent=a0-x', 'agent=a1--', 'limit=0', 'limit=251', 'format=csv']) {
      const res = await get(`/api/arena/decisions?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });

  it('filters by agent handle; a handle naming no public agent matches nothing', async () => {
    expect((await get(`/api/arena/decisions?agent=a${pub}-oracle`)).body.count).toBe(3);
    expect((await get(`/api/arena/decisions?agent=a${priv}-quiet`)).body.count).toBe(0);
    expect((await get(`/api/arena/decisions?agent=a${pub}-someone-else`)).body.count).toBe(0);
    const huge = await get('/api/arena/decisions?agent=a99999999999999999999-x');
    expect(huge.status).toBe(200);
    expect(huge.body.count).toBe(0);
    expect((await get('/api/arena/a2147483648-x')).status).toBe(404);
  });

  it('streams jsonl / ndjson, one decision per line, matching the json page', async () => {
    const json = (await get('/api/arena/decisions')).body;
    for (const format of ['jsonl', 'ndjson']) {
      const res = await get(`/api/arena/decisions?format=${format}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
      expect(res.headers['x-total-count']).toBe('3');
      const lines = res.raw.trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(lines).toEqual(json.decisions);
    }
  });

  it('adds opportunities with includeOpportunities (public, attributed only)', async () => {
    const { body } = await get('/api/arena/decisions?includeOpportunities=true&limit=1');
    expect(body.opportunityCount).toBe(2);
    expect(body.opportunities).toHaveLength(1);
    expect(body.opportunities[0]).toMatchObject({ decisionUuid: uuids.abstained, opportunityKind: 'abstained', reasonCode: 'no_edge', edgePoints: 1 });
    expect(body.opportunities[0].pnlMusd).toBeUndefined();
    expect(body.pagination).toMatchObject({ opportunitiesHasMore: true, decisionsHasMore: true, hasMore: true });
    const next = (await get(`/api/arena/decisions?includeOpportunities=true&limit=1&cursor=${body.pagination.nextCursor}`)).body;
    expect(next.opportunities[0]).toMatchObject({ decisionUuid: uuids.rejected, entryContext: null, cohort: { kind: 'opportunity_cohort', universeSize: 40 } });
  });

  it('streams decisions only in jsonl and counts resolved decisions only in X-Total-Count, with opportunities or not (contract §4.2 rule 3)', async () => {
    const json = await get('/api/arena/decisions?includeOpportunities=true');
    expect(json.body.opportunities).toHaveLength(2);
    expect(json.body.count).toBe(3);
    expect(json.headers['x-total-count']).toBe('3');
    const res = await get('/api/arena/decisions?format=jsonl&includeOpportunities=true');
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers['x-has-more']).toBe('false');
    const lines = res.raw.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(json.body.decisions);
    const plain = await get('/api/arena/decisions?format=jsonl');
    expect(plain.headers['x-total-count']).toBe('3');
    expect(plain.raw).toBe(res.raw);
  });

  it('sends a dataset page compressed when the client accepts it, the same records once decoded', async () => {
    for (const url of ['/api/arena/decisions?format=jsonl&includeOpportunities=true', '/api/arena/decisions?includeOpportunities=true']) {
      const plain = await t.app.inject({ url });
      const packed = await t.app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(packed.statusCode).toBe(200);
      expect(packed.headers['content-encoding']).toBe('gzip');
      expect(packed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(packed.headers['x-total-count']).toBe(plain.headers['x-total-count']);
      expect(packed.headers.etag).not.toBe(plain.headers.etag);
      expect(gunzipSync(packed.rawPayload).toString()).toBe(plain.body);
    }
  });

  it('serves artifacts whose content hash a third party can recompute from the artifact alone', async () => {
    for (const name of ['won', 'v2', 'pending', 'abstained', 'void', 'legacy']) {
      const { status, body, headers } = await get(`/api/arena/decisions/${uuids[name]}`);
      expect(status, name).toBe(200);
      expect(headers['cache-control']).toBe('public, max-age=300');
      const picked = Object.fromEntries(body.contentHashFields.map((f: string) => [f, body[f]]));
      expect(createHash('sha256').update(jcs(picked)).digest('hex'), name).toBe(body.contentHash);
    }
    const won = (await get(`/api/arena/decisions/${uuids.won}`)).body;
    expect(won.contentHashFields).toEqual([...CONTENT_HASH_FIELDS_V1]);
    expect(won).toMatchObject({ result: 'pending', settlementLabel: 'won', apiKeyId: pub, agent: `a${pub}-oracle`, runId: 'run-1', decisionId: 'client-1', schemaVersion: 1, provenance: null });
    expect(won.decisionContext.volume24h).toBe(12000);
    // Reference B9/C8: eventId is the integer internal event id (and hashed as one); a record from
    // before the cut-over keeps the string it was hashed with.
    expect(won.eventId).toBe(41);
    expect(won.positionId).toBe(101);
    expect((await get(`/api/arena/decisions/${uuids.legacy}`)).body.eventId).toBe('sim-pm/btc-100k');
    const v2 = (await get(`/api/arena/decisions/${uuids.v2}`)).body;
    expect(v2.schemaVersion).toBe(2);
    expect(v2.contentHashFields.at(-1)).toBe('provenance');
    expect(v2.provenance).toMatchObject({ v: 1, executionPolicyVersion: 'paper_execution_v1', evaluationPolicyVersion: 'eval-1', providerVerified: false, runtimeKind: 'byo_api', modelName: 'm7' });
    // Reference part C 12: report keys the agent omitted are sent as null, not left out (and hashed so).
    for (const k of ['packageVersion', 'bundleId', 'bundleVersion', 'skillVersions', 'promptHash', 'configHash', 'modelProvider', 'evidenceRef']) expect(v2.provenance[k], k).toBeNull();
    // Changing any hashed field changes the hash.
    const tampered = Object.fromEntries(won.contentHashFields.map((f: string) => [f, f === 'marketProbability' ? 61 : won[f]]));
    expect(createHash('sha256').update(jcs(tampered)).digest('hex')).not.toBe(won.contentHash);
  });

  it('404s malformed, unknown, private, revoked and unattributed artifacts', async () => {
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', uuids.private, uuids.revoked, uuids.unattributed]) {
      const res = await get(`/api/arena/decisions/${id}`);
      expect(res.status, String(id)).toBe(404);
      expect(res.body.error).toBe('decision_not_found');
    }
  });

  it('keeps records immutable: no edits, no deletes, one settlement only, none for non-opened kinds', async () => {
    const db = t.testDb.database.db;
    await expect(db.execute(sql`update arena_decisions set event_title = 'edited' where decision_uuid = ${uuids.won}::uuid`)).rejects.toThrow();
    await expect(db.execute(sql`update arena_decisions set market_probability = 1 where decision_uuid = ${uuids.pending}::uuid`)).rejects.toThrow();
    // settlement columns only with the settlement itself: not written ahead on a pending decision
    const refusal = (query: SQL) => db.execute(query).then(() => 'allowed', (e: { cause?: Error } & Error) => (e.cause ?? e).message);
    expect(await refusal(sql`update arena_decisions set pnl_musd = 5 where decision_uuid = ${uuids.pending}::uuid`)).toMatch(/changes only by its settlement/);
    expect(await refusal(sql`update arena_decisions set brier = 0.1, agent_brier = 0.2 where decision_uuid = ${uuids.pending}::uuid`)).toMatch(/changes only by its settlement/);
    await expect(db.execute(sql`delete from arena_decisions where decision_uuid = ${uuids.won}::uuid`)).rejects.toThrow();
    const settle = (uuid: string) => db.transaction((tx) => settleDecision(tx, { decisionUuid: uuid }, { label: 'lost', pnlMusd: new Decimal(-1), settledAtMs: t.clock.now() }));
    await expect(settle(uuids.won!)).rejects.toThrow();
    await expect(settle(uuids.abstained!)).rejects.toThrow();
    const after = (await get(`/api/arena/decisions/${uuids.won}`)).body;
    expect(after).toMatchObject({ settlementLabel: 'won', eventTitle: 'Will BTC close above 100k?' });
    // the artifact changes only in settlementLabel and settledAt (contract §2.11): PnL and scores are the dataset's
    for (const field of ['pnlMusd', 'brier', 'agentBrier']) expect(after).not.toHaveProperty(field);
    // Settling the pending one by position works once and leaves the hash unchanged.
    const before = (await get(`/api/arena/decisions/${uuids.pending}`)).body;
    const settled = await db.transaction((tx) => settleDecision(tx, { positionId: '105' }, { label: 'won', pnlMusd: new Decimal(5), settledAtMs: t.clock.now() }));
    expect(settled.contentHash).toBe(before.contentHash);
    // A settlement shows in the totals at once (it moves the dataset's marker), and last in its order.
    const after4 = await get('/api/arena/decisions');
    expect(after4.body.count).toBe(4);
    expect(after4.headers['x-total-count']).toBe('4');
    expect(after4.body.decisions.at(-1).decisionUuid).toBe(uuids.pending);
  });
});

describe('Decisions dataset: resolution order', { timeout: 120_000 }, () => {
  let t: TestApp;
  afterAll(() => t?.close(), 120_000);

  it('a decision that settles while a client pages is served once, after what was already served; totals follow at once', async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    const keyId = await agentKey(db, 'Pager');
    const record = (positionId: string) =>
      db.transaction(async (tx) =>
        (await recordDecision(tx, { keyId, opportunityKind: 'opened', venue: 'sim-pm', eventSlug: `m-${positionId}`, side: 'yes', marketProbability: 50, outcomesCount: 2, positionId, createdAtMs: t.clock.now() }))
          .decisionUuid,
      );
    const settle = (positionId: string) =>
      db.transaction((tx) => settleDecision(tx, { positionId }, { label: 'won', pnlMusd: new Decimal(1), settledAtMs: t.clock.now() }));
    const early = await record('1'); // opened first, settles last
    const middle = await record('2');
    const late = await record('3');
    await settle('2');
    await settle('3');
    const uuidsOf = (res: { body: { decisions: { decisionUuid: string }[] } }) => res.body.decisions.map((d) => d.decisionUuid);
    const first = await t.app.inject({ url: '/api/arena/decisions?limit=1' });
    expect(uuidsOf({ body: first.json() })).toEqual([middle]);
    expect(first.headers['x-total-count']).toBe('2');
    await settle('1');
    const seen = [middle];
    let cursor = first.json().pagination.nextCursor as string | null;
    while (cursor) {
      const page = (await t.app.inject({ url: `/api/arena/decisions?limit=1&cursor=${cursor}` })).json();
      seen.push(...uuidsOf({ body: page }));
      expect(page.count).toBe(3);
      cursor = page.pagination.nextCursor;
    }
    expect(seen).toEqual([middle, late, early]);
    // A cursor of the earlier id order is refused rather than read in the new order.
    const v1 = Buffer.from(JSON.stringify({ v: 1, d: 1, o: 0 })).toString('base64url');
    expect((await t.app.inject({ url: `/api/arena/decisions?cursor=${v1}` })).statusCode).toBe(400);
    // A version 2 cursor keeps working unless it had paged opportunities by id.
    const v2 = (o: number) => Buffer.from(JSON.stringify({ v: 2, d: 1, o })).toString('base64url');
    const resumed = await t.app.inject({ url: `/api/arena/decisions?limit=1&cursor=${v2(0)}` });
    expect(resumed.statusCode).toBe(200);
    expect(uuidsOf({ body: resumed.json() })).toEqual([late]);
    expect((await t.app.inject({ url: `/api/arena/decisions?cursor=${v2(5)}` })).statusCode).toBe(400);
  });
});
