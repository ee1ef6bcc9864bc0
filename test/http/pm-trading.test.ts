import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brierOf, decisionContentHash } from '../../src/arena/decisions.js';
import { Decimal } from '../../src/domain/money.js';
import { forcePmResolution, readVenueMarket } from '../../src/pm/api.js';
import { pmReadModel } from '../../src/pm/read-model.js';
import { checkBooks } from '../../src/services/doctor.js';
import { settlePmPositions } from '../../src/services/pm-trading-settlement.js';
import { findDecisionByPosition, findDecisionByUuid } from '../../src/storage/arena-decisions-repo.js';
import { findWallet } from '../../src/storage/books-repo.js';
import { queryRows } from '../../src/storage/db.js';
import { tradeableBinaryMarkets, type TradeableBinary } from '../support/pm-markets.js';
import { AS_OF_GRACE_MS } from '../../src/domain/delta-polling.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { keyedRouteSecurity } from '../support/security.js';

let t: PmTestApp;
/** Default budgets (no PM data) for the shared security suite's rate-limit checks. */
let defaults: TestApp;
let seq = 0;
const ik = () => `pm-ik-${(seq += 1)}`;
let markets: TradeableBinary[] = [];

beforeAll(async () => {
  t = await createPmApp({ config: { agentRpm: 1_000_000, tradeWpm: 1_000_000 } });
  markets = await tradeableBinaryMarkets(t.ctx.database.db);
  expect(markets.length).toBeGreaterThan(4);
  defaults = await createTestApp();
}, 180_000);
afterAll(async () => {
  await t.close();
  await defaults.close();
});

const post = (key: string, path: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/agent/pm/${path}`, headers: bearer(key), payload });
const openBody = (m: (typeof markets)[number], extra: object = {}) => ({
  source: m.source,
  slug: m.slug,
  outcomeExternalMarketId: m.yesId,
  stakeMusd: 100,
  idempotencyKey: ik(),
  ...extra,
});
const decisionsOf = (keyId: number) =>
  queryRows<{ opportunity_kind: string; reason_code: string | null; position_id: string | null }>(
    t.ctx.database.db,
    sql`select opportunity_kind, reason_code, position_id from arena_decisions where key_id = ${keyId} order by id`,
  );
async function booksBalanced(): Promise<void> {
  expect((await checkBooks(t.ctx.database.db)).discrepancies).toEqual([]);
}

describe('POST /api/agent/pm/quote', () => {
  it('prices YES at the mid plus costs and NO at 100 − p, with execution model and edge sizing', async () => {
    const { key } = await t.newKey(['read']);
    const m = markets[0]!;
    const yes = await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 100, forecastProbability: 95, bankrollMusd: 10_000 });
    expect(yes.statusCode).toBe(200);
    const q = yes.json();
    expect(q.entryProbability).toBe(m.p);
    expect(q.side).toBe('yes');
    expect(q.eligible).toBe(true);
    expect(q.blockReasons).toEqual([]);
    expect(q.minStake).toBe(10);
    expect(q.executionModel.feeBps).toBeGreaterThan(0);
    expect(q.executionModel.spreadBps).toBeGreaterThan(0);
    // Costs: fewer shares than stake / mid.
    expect(q.sharesEstimate).toBeLessThan(100 / (m.p / 100));
    expect(q.maxPayout).toBe(q.sharesEstimate);
    expect(q.edgeSizing).toMatchObject({ basis: 'fractional_kelly_capped', kellyMultiplier: 0.25, noEdge: false });
    expect(q.observation.schema).toBe('svc.agentObservation.v1');
    expect(q.event).toMatchObject({ source: m.source, slug: m.slug, status: 'open' });
    expect(q.openBlocked).toBe(false);

    const no = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, side: 'no', stakeMusd: 100 })).json();
    expect(no.entryProbability).toBeCloseTo(100 - m.p, 9);
    expect(no.edgeSizing).toBeNull();

    const small = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 5, minEntryProbabilityPct: 99 })).json();
    expect(small.eligible).toBe(false);
    expect(small.blockReasons).toEqual(expect.arrayContaining(['stake_below_min', 'entry_below_floor']));
  });

  it('answers 400 for bad ranges and 404 for unknown events or outcomes', async () => {
    const { key } = await t.newKey(['read']);
    const m = markets[0]!;
    const base = { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 100 };
    expect((await post(key, 'quote', { ...base, stakeMusd: 0 })).statusCode).toBe(400);
    expect((await post(key, 'quote', { ...base, forecastProbability: 100 })).statusCode).toBe(400);
    expect((await post(key, 'quote', { ...base, minEntryProbabilityPct: 101 })).statusCode).toBe(400);
    const missing = await post(key, 'quote', { ...base, slug: 'no-such-event' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('event_not_found');
    expect((await post(key, 'quote', { ...base, outcomeExternalMarketId: 'nope' })).json().error).toBe('outcome_not_found');
  });
});

describe('POST /api/agent/pm/open', () => {
  it('opens (201), replays (200), refuses a reused key (409), and records an opened decision', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const m = markets[1]!;
    const body = openBody(m, { forecastProbability: 70, thesis: 'cheap yes', provenance: { runtimeKind: 'byo_api', promptHash: 'a'.repeat(64) } });
    const quoted = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: body.stakeMusd })).json();
    const res = await post(key, 'open', body);
    expect(res.statusCode).toBe(201);
    const pos = res.json().position;
    expect(pos.fillProbability).toBe(quoted.fillProbability); // the same figure, to the quote's 6 places
    expect(pos).toMatchObject({ status: 'open', source: m.source, eventSlug: m.slug, side: 'yes', stakeMusd: 100, entryProbability: m.p, settlementState: 'pending', payoutMusd: null });
    expect(pos.outcome.externalMarketId).toBe(m.yesId);
    expect(pos.maxPayout).toBe(pos.sharesMusd);
    const wallet = (await findWallet(t.ctx.database.db, keyId))!;
    expect(wallet.frozenPm.toNumber()).toBe(100);
    expect(wallet.available.toNumber()).toBe(49_900);

    const replay = await post(key, 'open', body);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ position: pos, idempotentReplay: true });
    // spelling out the default side is the same request
    expect((await post(key, 'open', { ...body, side: 'yes' })).json()).toEqual({ position: pos, idempotentReplay: true });
    // and so is a null one (null is left out, docs/http-conventions.md): not a 400
    expect((await post(key, 'open', { ...body, side: null, forecastProbability: 70 })).json()).toEqual({ position: pos, idempotentReplay: true });
    expect((await post(key, 'open', { ...body, side: 'no' })).statusCode).toBe(409);
    const conflict = await post(key, 'open', { ...body, stakeMusd: 200 });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toBe('idempotency_key_conflict');

    const d = (await findDecisionByPosition(t.ctx.database.db, String(pos.id)))!;
    expect(d).toMatchObject({ opportunityKind: 'opened', agentForecastProbability: 70, marketProbability: m.p, thesis: 'cheap yes', schemaVersion: 2 });
    expect(d.provenance).toMatchObject({ providerVerified: false, runtimeKind: 'byo_api' });
    expect(d.decisionContext).toMatchObject({ v: 1, chosenProbability: m.p });
    expect(decisionContentHash(d as unknown as Record<string, unknown>, d.contentHashFields)).toBe(d.contentHash);
    expect((await decisionsOf(keyId)).length).toBe(1);
    // every column an open sets is stored (the write names its columns; a misnamed field would be NULL)
    const [row] = await queryRows<Record<string, unknown>>(t.ctx.database.db, sql`select * from pm_positions where id = ${pos.id}`);
    const unset = Object.entries(row!).filter(([, v]) => v === null).map(([c]) => c).sort();
    expect(unset).toEqual(['payout_musd', 'pnl_musd', 'settled_at', 'void_reason']);
    await booksBalanced();
  });

  it('refuses a floor, a short stake and no cash without moving money, and records each refusal', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const m = markets[2]!;
    const floor = await post(key, 'open', openBody(m, { minEntryProbabilityPct: 99 }));
    expect(floor.statusCode).toBe(422);
    expect(floor.json()).toMatchObject({ error: 'mock_entry_blocked', blockReasons: ['entry_below_floor'] });
    const short = await post(key, 'open', openBody(m, { stakeMusd: 5 }));
    expect(short.statusCode).toBe(400);
    expect(short.json().error).toBe('invalid_request');
    const broke = await post(key, 'open', openBody(m, { stakeMusd: 60_000 }));
    expect(broke.statusCode).toBe(422);
    expect(broke.json().blockReasons).toEqual(['insufficient_usdt_balance']);
    const venue = await post(key, 'open', openBody(m, { slug: 'no-such-event' }));
    expect(venue.statusCode).toBe(404);
    const wallet = await findWallet(t.ctx.database.db, keyId);
    expect(wallet === null || wallet.frozenPm.isZero()).toBe(true);
    expect((await decisionsOf(keyId)).map((d) => [d.opportunity_kind, d.reason_code, d.position_id])).toEqual([
      ['risk_rejected', 'entry_below_floor', null],
      ['validation_failed', 'invalid_request', null],
      ['risk_rejected', 'insufficient_usdt_balance', null],
      ['validation_failed', 'event_not_found', null],
    ]);
    await booksBalanced();
  });

  it('refuses an entry minutes before the end when the market was last ingested longer ago than its time left allows (no worker running)', async () => {
    const { key } = await t.newKey(['read', 'trade:pm']);
    const m = markets[3]!;
    const [row] = await queryRows<{ end_at: string | null; updated_at: string }>(
      t.ctx.database.db,
      sql`select end_at::text, updated_at::text from pm_markets where source = ${m.source} and slug = ${m.slug}`,
    );
    const set = async (endAt: string | null, updatedAt: string) => {
      await t.ctx.database.db.execute(sql`update pm_markets set end_at = ${endAt}::timestamptz, updated_at = ${updatedAt}::timestamptz where source = ${m.source} and slug = ${m.slug}`);
      pmReadModel(t.ctx.database, t.ctx.clock).invalidate();
    };
    // ends in 5 minutes; the last ingest was 3 minutes ago (its quote has been frozen since)
    await set(new Date(t.clock.now() + 5 * 60_000).toISOString(), new Date(t.clock.now() - 3 * 60_000).toISOString());
    try {
      const quote = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 100 })).json();
      expect(quote).toMatchObject({ eligible: false, blockReasons: ['price_stale_near_end'] });
      const open = await post(key, 'open', openBody(m));
      expect([open.statusCode, open.json().blockReasons]).toEqual([422, ['price_stale_near_end']]);
    } finally {
      await set(row!.end_at, row!.updated_at);
    }
  });

  it('refuses an entry whose fill would reach 99.9 (fill_at_certainty); the other side of that book stays open', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const m = markets[4]!;
    const [row] = await queryRows<{ outcomes: unknown }>(t.ctx.database.db, sql`select outcomes from pm_markets where source = ${m.source} and slug = ${m.slug}`);
    const setOutcomes = async (outcomes: unknown) => {
      await t.ctx.database.db.execute(sql`update pm_markets set outcomes = ${JSON.stringify(outcomes)}::jsonb where source = ${m.source} and slug = ${m.slug}`);
      pmReadModel(t.ctx.database, t.ctx.clock).invalidate();
    };
    const [yes, no] = row!.outcomes as { probability: number; bid: number | null; ask: number | null }[];
    // a venue quoting hundredths: YES 99.95 (capped at 99.9, the fill came in under the mid)
    await setOutcomes([{ ...yes, probability: 99.95, bid: 99.94, ask: 99.96 }, { ...no, probability: 0.05, bid: 0.04, ask: 0.06 }]);
    try {
      const quote = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 100 })).json();
      expect(quote).toMatchObject({ eligible: false, blockReasons: ['fill_at_certainty'], sharesEstimate: null });
      const open = await post(key, 'open', openBody(m));
      expect([open.statusCode, open.json().blockReasons]).toEqual([422, ['fill_at_certainty']]);
      const wallet = await findWallet(t.ctx.database.db, keyId);
      expect(wallet === null || wallet.frozenPm.isZero()).toBe(true);
      const noSide = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, side: 'no', stakeMusd: 100 })).json();
      expect(noSide.blockReasons).not.toContain('fill_at_certainty');
      expect(noSide.sharesEstimate).toBeGreaterThan(0);
    } finally {
      await setOutcomes(row!.outcomes);
    }
  });

  it('refuses an entry once the event’s end time has passed, though its stored status is still open', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const m = markets[3]!;
    const [row] = await queryRows<{ end_at: string | null }>(t.ctx.database.db, sql`select end_at::text from pm_markets where source = ${m.source} and slug = ${m.slug}`);
    // as an ingest would change it (quotes read the process's PM snapshot, rebuilt when rows change)
    const setEnd = async (iso: string | null) => {
      await t.ctx.database.db.execute(sql`update pm_markets set end_at = ${iso}::timestamptz where source = ${m.source} and slug = ${m.slug}`);
      pmReadModel(t.ctx.database, t.ctx.clock).invalidate();
    };
    await setEnd(new Date(t.clock.now() - 1_000).toISOString());
    try {
      const quote = (await post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 100 })).json();
      expect(quote).toMatchObject({ eligible: false, blockReasons: ['event_not_open'], sharesEstimate: null });
      const open = await post(key, 'open', openBody(m));
      expect(open.statusCode).toBe(422);
      expect(open.json().blockReasons).toContain('event_not_open');
      const wallet = await findWallet(t.ctx.database.db, keyId);
      expect(wallet === null || wallet.frozenPm.isZero()).toBe(true);
    } finally {
      await setEnd(row!.end_at);
    }
    expect((await post(key, 'open', openBody(m))).statusCode).toBe(201);
  });

  it('executes 50 concurrent duplicates once', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const body = openBody(markets[3]!);
    const results = await Promise.all(Array.from({ length: 50 }, () => post(key, 'open', body)));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 200)).toHaveLength(49);
    expect(new Set(results.map((r) => r.json().position.id)).size).toBe(1);
    const [n] = await queryRows<{ n: number }>(t.ctx.database.db, sql`select count(*)::int as n from pm_positions where key_id = ${keyId}`);
    expect(n!.n).toBe(1);
    expect((await findWallet(t.ctx.database.db, keyId))!.frozenPm.toNumber()).toBe(100);
    expect((await decisionsOf(keyId)).filter((d) => d.opportunity_kind === 'opened')).toHaveLength(1);
    await booksBalanced();
  });

  it('answers 403 feature_disabled when PM_OPEN_ENABLED is off, and its quotes say so', async () => {
    const off = await createTestApp({ testDb: t.testDb, clock: t.clock, config: { pmOpenEnabled: false } });
    try {
      const { key } = await off.newKey(['read', 'trade:pm']);
      const res = await off.app.inject({ method: 'POST', url: '/api/agent/pm/open', headers: bearer(key), payload: openBody(markets[0]!) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'feature_disabled', message: 'PM mock trading is not enabled' });
      const { idempotencyKey: _k, ...quoteInput } = openBody(markets[0]!);
      const quote = await off.app.inject({ method: 'POST', url: '/api/agent/pm/quote', headers: bearer(key), payload: quoteInput });
      expect(quote.statusCode).toBe(200);
      expect(quote.json()).toMatchObject({ eligible: false, blockReasons: ['feature_disabled'], eligibility: { entryEligible: false } });
      // The same quote where opens are enabled is eligible: the flag is the only reason.
      expect((await post(key, 'quote', quoteInput)).json()).toMatchObject({ eligible: true, blockReasons: [] });
    } finally {
      await off.close();
    }
  }, 120_000);

  it('answers 403 feature_disabled on opportunity reports when AGENT_OPPORTUNITY_CAPTURE_ENABLED is off, recording nothing', async () => {
    const off = await createTestApp({ testDb: t.testDb, clock: t.clock, config: { opportunityCaptureEnabled: false } });
    try {
      const { key, keyId } = await off.newKey(['read']);
      const report = { kind: 'abstained', reasonCode: 'no_edge', decisionId: 'off-1' };
      const res = await off.app.inject({ method: 'POST', url: '/api/agent/pm/opportunity', headers: bearer(key), payload: report });
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'feature_disabled', message: 'opportunity capture is not enabled' }]);
      expect(await decisionsOf(keyId)).toEqual([]);
      // enabled (the default), the same report is recorded
      expect((await post(key, 'opportunity', report)).statusCode).toBe(201);
    } finally {
      await off.close();
    }
  }, 120_000);
});

describe('positions, equity and settlement', () => {
  it('marks open positions live, then settles won / lost / void exactly', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const [a, b] = [markets[4]!, markets[5] ?? markets[0]!];
    const yes = (await post(key, 'open', openBody(a, { forecastProbability: 80 }))).json().position;
    const no = (await post(key, 'open', openBody(a, { side: 'no', stakeMusd: 50 }))).json().position;
    const voided = (await post(key, 'open', openBody(b, { stakeMusd: 30 }))).json().position;
    expect([yes.id, no.id, voided.id].every(Number.isInteger)).toBe(true);

    const list = await t.app.inject({ method: 'GET', url: '/api/agent/positions/pm', headers: bearer(key) });
    expect(list.statusCode).toBe(200);
    const rows = list.json().positions as Record<string, any>[];
    expect(rows).toHaveLength(3);
    const mA = (await readVenueMarket(t.ctx.database, t.clock, a.source, a.slug))!;
    const pNow = mA.outcomes.find((o) => o.externalMarketId === a.yesId)!.probability;
    const liveYes = rows.find((r) => r.id === yes.id)!;
    expect(liveYes.currentProbability).toBe(pNow);
    expect(liveYes.unrealizedMark).toBeCloseTo(yes.sharesMusd * (pNow / 100), 5);
    expect(liveYes.unrealizedPnl).toBeCloseTo(liveYes.unrealizedMark - 100, 5);
    const liveNo = rows.find((r) => r.id === no.id)!;
    expect(liveNo.currentProbability).toBeCloseTo(100 - pNow, 9);

    // Portfolio equity = cash + Σ(mark − stake) of open PM positions.
    const portfolio = (await t.app.inject({ method: 'GET', url: '/api/agent/portfolio', headers: bearer(key) })).json();
    const marks = rows.reduce((s, r) => s + (r.unrealizedMark - r.stakeMusd), 0);
    expect(portfolio.equity.totalUsd).toBeCloseTo(50_000 + marks, 4);
    // the rows' unrealized PnL adds up to the portfolio's other-venue value within 1e-8 per row
    const unrealized = rows.reduce((s, r) => s + r.unrealizedPnl, 0);
    expect(Math.abs(unrealized - portfolio.equity.otherVenuesUsd)).toBeLessThanOrEqual(rows.length * 1e-8 + 1e-9);
    expect(portfolio.equity.frozenPm).toBe(180);

    t.clock.advance(60_000);
    expect(await forcePmResolution(t.ctx.database, t.clock, { source: a.source, slug: a.slug, winnerExternalMarketId: a.yesId })).toBe(true);
    expect(await forcePmResolution(t.ctx.database, t.clock, { source: b.source, slug: b.slug, winnerExternalMarketId: null })).toBe(true);
    // each batch is stamped when it runs (a long run must not stamp rows behind the polling grace)
    const runStart = t.clock.now();
    const laterEachBatch = () => {
      t.clock.advance(7_000);
      return t.clock.now();
    };
    expect(await settlePmPositions(t.ctx.database, runStart, laterEachBatch)).toBeGreaterThanOrEqual(3);
    expect(await settlePmPositions(t.ctx.database, t.clock.now())).toBe(0);
    const stamps = await queryRows<{ slug: string; t: string }>(
      t.ctx.database.db,
      sql`select event_slug as slug, (extract(epoch from updated_at) * 1000)::bigint::text as t from pm_positions where key_id = ${keyId}`,
    );
    const stampOf = (slug: string) => new Set(stamps.filter((r) => r.slug === slug).map((r) => Number(r.t)));
    expect([...stampOf(a.slug)].every((v) => v > runStart)).toBe(true);
    expect([...stampOf(b.slug)].every((v) => v > runStart)).toBe(true);
    expect(new Set(stamps.map((r) => r.t)).size).toBeGreaterThanOrEqual(2); // one market's batch after the other's

    const after = (await t.app.inject({ method: 'GET', url: '/api/agent/positions/pm', headers: bearer(key) })).json().positions as Record<string, any>[];
    const won = after.find((r) => r.id === yes.id)!;
    const lost = after.find((r) => r.id === no.id)!;
    const refunded = after.find((r) => r.id === voided.id)!;
    expect(won).toMatchObject({ status: 'won', settlementState: 'settled', payoutMusd: yes.sharesMusd, voidReason: null, currentProbability: null });
    expect(won.pnlMusd).toBeCloseTo(yes.sharesMusd - 100, 6);
    expect(lost).toMatchObject({ status: 'lost', settlementState: 'settled', payoutMusd: 0, pnlMusd: -50 });
    expect(refunded).toMatchObject({ status: 'void_refunded', settlementState: 'voided', payoutMusd: 30, pnlMusd: 0, voidReason: 'market_voided' });
    expect(won.settledAt).toBe(new Date(Math.max(...stampOf(a.slug))).toISOString());

    const wallet = (await findWallet(t.ctx.database.db, keyId))!;
    expect(wallet.frozenPm.toNumber()).toBe(0);
    expect(wallet.available.toString()).toBe(new Decimal(50_000).minus(180).plus(yes.sharesMusd).plus(30).toString());
    await booksBalanced();

    const trades = await queryRows<{ side: string; realized_pnl: string | null; ref_id: string }>(
      t.ctx.database.db,
      sql`select side, realized_pnl::text, ref_id from closed_trades where key_id = ${keyId} and venue = 'pm' order by ref_id::int`,
    );
    expect(trades).toEqual([
      { side: 'yes', realized_pnl: new Decimal(yes.sharesMusd).minus(100).toString(), ref_id: String(yes.id) },
      { side: 'no', realized_pnl: '-50', ref_id: String(no.id) },
      { side: 'yes', realized_pnl: null, ref_id: String(voided.id) },
    ]);
    // the trade log names the position it settled, like futures rows do
    const log = (await t.app.inject({ url: '/api/agent/trades?venue=pm', headers: bearer(key) })).json().trades as { detail: { positionId: number; status: string } }[];
    expect(log.map((r) => r.detail.positionId).sort((x, y) => x - y)).toEqual([yes.id, no.id, voided.id].sort((x, y) => x - y));

    const dWon = (await findDecisionByPosition(t.ctx.database.db, String(yes.id)))!;
    expect(dWon.settlementLabel).toBe('won');
    expect(dWon.brier).toBe(brierOf(a.p, 'won')); // the settlement's SQL and brierOf agree to the last digit
    expect(dWon.agentBrier).toBe(brierOf(80, 'won'));
    expect(dWon.edgePoints).toBeCloseTo(80 - a.p, 6);
    expect(dWon.settledAt).toBe(won.settledAt);
    expect(Number(dWon.pnlMusd)).toBeCloseTo(yes.sharesMusd - 100, 6);
    const dLost = (await findDecisionByPosition(t.ctx.database.db, String(no.id)))!;
    expect(dLost).toMatchObject({ settlementLabel: 'lost', agentBrier: null, edgePoints: null });
    expect(dLost.brier).toBe(brierOf(100 - a.p, 'lost'));
    const dVoid = (await findDecisionByPosition(t.ctx.database.db, String(voided.id)))!;
    expect(dVoid).toMatchObject({ settlementLabel: 'void', brier: null });
    // The hash still verifies after settlement (stamps are outside it), and records cannot be edited.
    for (const d of [dWon, dLost, dVoid]) expect(decisionContentHash(d as unknown as Record<string, unknown>, d.contentHashFields)).toBe(d.contentHash);
    await expect(t.ctx.database.db.execute(sql`update arena_decisions set thesis = 'edited' where id = ${dWon.id}`)).rejects.toThrow();

    // updatedSince: only rows changed at or after it.
    const since = await t.app.inject({ method: 'GET', url: `/api/agent/positions/pm?updatedSince=${new Date(t.clock.now() + 1).toISOString()}`, headers: bearer(key) });
    expect(since.json().positions).toEqual([]);
    // asOf lies a few seconds back: an open stamped just before a poll's read but committed after
    // it (it waited for its book) shows in the next delta, not never.
    const listed = (await t.app.inject({ method: 'GET', url: '/api/agent/positions/pm', headers: bearer(key) })).json();
    expect(listed.asOf).toBe(new Date(t.clock.now() - AS_OF_GRACE_MS).toISOString());
    t.clock.advance(-1000);
    const late = (await post(key, 'open', openBody(markets[1]!))).json().position;
    t.clock.advance(1000);
    const delta = await t.app.inject({ method: 'GET', url: `/api/agent/positions/pm?updatedSince=${encodeURIComponent(listed.asOf)}`, headers: bearer(key) });
    expect(delta.json().positions.map((p: { id: number }) => p.id)).toContain(late.id);
  });
});

describe('GET /api/agent/positions/pm delta polling past its 200-row cap', () => {
  it('reads 250 changes over two polls of at most 200, never splitting a millisecond', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const opened = await post(key, 'open', openBody(markets[0]!, { stakeMusd: 10 }));
    expect(opened.statusCode).toBe(201);
    const base = t.clock.now() - 60_000;
    // 249 copies of the row (as settled history), changed over 3 milliseconds: 150, 60 and 39 rows
    await t.ctx.database.db.execute(sql`
      insert into pm_positions (key_id, wallet_id, source, event_slug, event_title, outcome_external_id, outcome_label, side, fill_basis,
        entry_probability, fill_probability, entry_prob_sum, stake_musd, shares_musd, fee_musd, shape, markets_count, entry_outcomes_snapshot,
        freshness_at_entry, event_status_at_entry, status, settlement_state, payout_musd, pnl_musd, opened_at, settled_at, created_at, updated_at)
      select key_id, wallet_id, source, event_slug, event_title, outcome_external_id, outcome_label, side, fill_basis,
        entry_probability, fill_probability, entry_prob_sum, stake_musd, shares_musd, fee_musd, shape, markets_count, entry_outcomes_snapshot,
        freshness_at_entry, event_status_at_entry, 'lost', 'settled', 0, -stake_musd, opened_at, t.at, created_at, t.at
      from pm_positions p, (select ${new Date(base).toISOString()}::timestamptz + (case when g <= 150 then 0 when g <= 210 then 1 else 2 end) * interval '1 millisecond' as at
                           from generate_series(1, 249) g) t
      where p.id = ${opened.json().position.id}`);
    const poll = async (since: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/agent/positions/pm?updatedSince=${encodeURIComponent(since)}`, headers: bearer(key) })).json();
    const first = await poll(new Date(base).toISOString());
    // the 200 oldest changes end inside the second millisecond: the page stops before it (never part of one)
    expect(first.positions).toHaveLength(150);
    expect(first.asOf).toBe(new Date(base + 1).toISOString());
    const second = await poll(first.asOf);
    expect(second.positions).toHaveLength(100); // the second and third milliseconds and the open row
    const ids = new Set([...first.positions, ...second.positions].map((p: { id: number }) => p.id));
    const [{ n }] = (await queryRows<{ n: number }>(t.ctx.database.db, sql`select count(*)::int as n from pm_positions where key_id = ${keyId}`)) as [{ n: number }];
    expect(ids.size).toBe(n);
    expect(second.asOf).toBe(new Date(t.clock.now() - AS_OF_GRACE_MS).toISOString());
  });
});

describe('markets no venue resolves', () => {
  it('refunds the positions of a market still unresolved 30 days after its end, not before', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const [stale, recent] = [markets.at(-1)!, markets.at(-2)!];
    const lost = (await post(key, 'open', openBody(stale, { stakeMusd: 40 }))).json().position;
    const kept = (await post(key, 'open', openBody(recent, { stakeMusd: 20 }))).json().position;
    // The venue stopped listing both (no resolution will come): one ended 31 days ago, one 29.
    const endedAgo = async (m: (typeof markets)[number], days: number) =>
      t.ctx.database.db.execute(sql`update pm_markets set end_at = ${new Date(t.clock.now() - days * 86_400_000).toISOString()}::timestamptz where source = ${m.source} and slug = ${m.slug}`);
    await endedAgo(stale, 31);
    await endedAgo(recent, 29);
    expect(await settlePmPositions(t.ctx.database, t.clock.now())).toBe(1);
    const rows = (await t.app.inject({ method: 'GET', url: '/api/agent/positions/pm', headers: bearer(key) })).json().positions as Record<string, any>[];
    expect(rows.find((r) => r.id === lost.id)).toMatchObject({ status: 'void_refunded', settlementState: 'voided', payoutMusd: 40, pnlMusd: 0, voidReason: 'market_unresolved' });
    expect(rows.find((r) => r.id === kept.id)).toMatchObject({ status: 'open' });
    const wallet = (await findWallet(t.ctx.database.db, keyId))!;
    expect(wallet.frozenPm.toNumber()).toBe(20);
    expect(wallet.available.toNumber()).toBe(50_000 - 20);
    expect((await findDecisionByPosition(t.ctx.database.db, String(lost.id)))!.settlementLabel).toBe('void');
    await booksBalanced();
  });

  it('counts a market without an end time from its last capture: refunded 30 days after the venue stopped listing it', async () => {
    const { key } = await t.newKey(['read', 'trade:pm']);
    const [gone, listed] = [markets.at(-3)!, markets.at(-4)!];
    const refunded = (await post(key, 'open', openBody(gone, { stakeMusd: 30 }))).json().position;
    const kept = (await post(key, 'open', openBody(listed, { stakeMusd: 30 }))).json().position;
    const noEnd = async (m: (typeof markets)[number], lastCapturedDaysAgo: number) =>
      t.ctx.database.db.execute(
        sql`update pm_markets set end_at = null, last_capture_at = ${new Date(t.clock.now() - lastCapturedDaysAgo * 86_400_000).toISOString()}::timestamptz where source = ${m.source} and slug = ${m.slug}`,
      );
    await noEnd(gone, 31);
    await noEnd(listed, 0);
    expect(await settlePmPositions(t.ctx.database, t.clock.now())).toBe(1);
    const rows = (await t.app.inject({ method: 'GET', url: '/api/agent/positions/pm', headers: bearer(key) })).json().positions as Record<string, any>[];
    expect(rows.find((r) => r.id === refunded.id)).toMatchObject({ status: 'void_refunded', voidReason: 'market_unresolved', payoutMusd: 30 });
    expect(rows.find((r) => r.id === kept.id)).toMatchObject({ status: 'open' });
    await booksBalanced();
  });
});

describe('decisions dataset, artifact and event detail', () => {
  it('shows a public agent\'s settled PM decision, its verifiable artifact and its open holding', async () => {
    const { key, keyId } = await t.newKey(['read', 'trade:pm'], { agentName: 'pm-bot', public: true });
    const m = markets[6] ?? markets[0]!;
    const hidden = await t.newKey(['read', 'trade:pm']); // not public: neither listed nor counted
    expect((await post(hidden.key, 'open', openBody(m, { idempotencyKey: 'hidden-holder' }))).statusCode).toBe(201);
    const pos = (await post(key, 'open', openBody(m, { forecastProbability: 65, thesis: 'public thesis' }))).json().position;
    const detail = (await t.get(`/api/prediction-markets/events/${m.source}/${m.slug}`)).body as Record<string, any>;
    expect(detail.agentsTradingMarket?.agents?.map((a: { handle: string }) => a.handle) ?? []).toContain(`a${keyId}-pm-bot`);
    expect(detail.agentsTradingMarket.openPositions).toBe(detail.agentsTradingMarket.agents.length);
    const d = (await findDecisionByPosition(t.ctx.database.db, String(pos.id)))!;
    const artifact = await t.get(`/api/arena/decisions/${d.decisionUuid}`);
    expect(artifact.status).toBe(200);
    expect(artifact.body).toMatchObject({ decisionUuid: d.decisionUuid, opportunityKind: 'opened', contentHash: d.contentHash, thesis: 'public thesis', settlementLabel: null });
    t.clock.advance(1000);
    await forcePmResolution(t.ctx.database, t.clock, { source: m.source, slug: m.slug, winnerExternalMarketId: m.noId });
    await settlePmPositions(t.ctx.database, t.clock.now());
    const after = (await t.get(`/api/arena/decisions/${d.decisionUuid}`)).body as Record<string, any>;
    expect(after).toMatchObject({ settlementLabel: 'lost', contentHash: d.contentHash });
    const picked: Record<string, unknown> = {};
    for (const f of after.contentHashFields as string[]) picked[f] = after[f];
    expect(decisionContentHash(picked, after.contentHashFields)).toBe(d.contentHash);
    const dataset = (await t.get(`/api/arena/decisions?agent=a${keyId}-pm-bot`)).body as { decisions: Record<string, any>[] };
    expect(dataset.decisions.map((x) => x.decisionUuid)).toEqual([d.decisionUuid]);
    expect(dataset.decisions[0]).toMatchObject({ result: 'lost', agentForecastProbability: 65, realizedPaperTrade: { positionId: pos.id, stakeMusd: 100, realizedPnlMusd: -100 } });
  });
});

describe('cross-venue reference at entry (supplement 2.10)', () => {
  /** An open binary event on a trading venue whose cluster publishes a reference, as the public list shows it. */
  async function referencedEvent(): Promise<{ e: any; leaderId: string; otherId: string }> {
    for (const source of ['polymarket', 'kalshi']) {
      for (let offset = 0; ; offset += 100) {
        const r = await t.get(`/api/prediction-markets/events?status=open&source=${source}&limit=100&offset=${offset}`);
        const e = r.body.data.find((x: any) => x.referenceProbability?.kind === 'binary' && x.outcomes.every((o: any) => o.probability > 5 && o.probability < 95));
        if (e) {
          const market = (await readVenueMarket(t.ctx.database, t.clock, e.source.id, e.slug))!;
          const leader = market.outcomes.find((o) => o.name === e.referenceProbability.outcomeName)!;
          const other = market.outcomes.find((o) => o !== leader)!;
          return { e, leaderId: leader.externalMarketId, otherId: other.externalMarketId };
        }
        if (!r.body.pagination.hasMore) break;
      }
    }
    throw new Error('no referenced binary event on a trading venue');
  }

  it('records the consensus of the side taken on opens, refusals and forecast-only reports', async () => {
    const { e, leaderId, otherId } = await referencedEvent();
    const ref = e.referenceProbability;
    expect(ref.venueCount).toBeGreaterThanOrEqual(2);
    const { key, keyId } = await t.newKey(['read', 'trade:pm']);
    const base = { source: e.source.id, slug: e.slug, stakeMusd: 20 };
    const cases = [
      { outcomeExternalMarketId: leaderId, side: 'yes', expected: ref.probability },
      { outcomeExternalMarketId: leaderId, side: 'no', expected: Math.round((100 - ref.probability) * 10) / 10 },
      { outcomeExternalMarketId: otherId, side: 'yes', expected: Math.round((100 - ref.probability) * 10) / 10 },
      { outcomeExternalMarketId: otherId, side: 'no', expected: ref.probability },
    ];
    for (const c of cases) {
      const res = await post(key, 'open', { ...base, outcomeExternalMarketId: c.outcomeExternalMarketId, side: c.side, idempotencyKey: ik() });
      expect(res.statusCode).toBe(201);
      const d = (await findDecisionByPosition(t.ctx.database.db, String(res.json().position.id)))!;
      expect([c.side, d.referenceProbability, d.referenceVenueCount]).toEqual([c.side, c.expected, ref.venueCount]);
      expect(d.decisionContext).toMatchObject({ referenceProbability: c.expected, referenceVenueCount: ref.venueCount });
      expect(decisionContentHash(d as unknown as Record<string, unknown>, d.contentHashFields)).toBe(d.contentHash);
    }
    // a refused open (floor) and a forecast-only report record the same reference
    const refused = await post(key, 'open', { ...base, outcomeExternalMarketId: leaderId, minEntryProbabilityPct: 99, idempotencyKey: ik() });
    expect(refused.statusCode).toBe(422);
    const report = await post(key, 'opportunity', { kind: 'forecast_only', source: e.source.id, slug: e.slug, outcomeExternalMarketId: leaderId, side: 'no', forecastProbability: 40 });
    expect(report.statusCode).toBe(201);
    const rows = await queryRows<{ kind: string; ref: number | null; venues: number | null }>(
      t.ctx.database.db,
      sql`select opportunity_kind as kind, reference_probability as ref, reference_venue_count as venues from arena_decisions
          where key_id = ${keyId} order by id desc limit 2`,
    );
    expect(rows.map((r) => [r.kind, r.ref, r.venues])).toEqual([
      ['forecast_only', Math.round((100 - ref.probability) * 10) / 10, ref.venueCount],
      ['risk_rejected', ref.probability, ref.venueCount],
    ]);
  });

  it('records none outside a cluster of two or more venues', async () => {
    const { key } = await t.newKey(['read', 'trade:pm']);
    // every simulated trading-venue market is matched: take one still open to entries out of its cluster
    const quotes = await Promise.all(markets.map((m) => post(key, 'quote', { source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, stakeMusd: 20 })));
    const m = markets.filter((_, i) => quotes[i]!.json().eligible && !quotes[i]!.json().openBlocked).at(-1)!;
    await t.ctx.database.db.execute(sql`update pm_markets set canonical_key = null where source = ${m.source} and slug = ${m.slug}`);
    const res = await post(key, 'open', openBody(m, { stakeMusd: 20 }));
    expect(res.statusCode).toBe(201);
    const d = (await findDecisionByPosition(t.ctx.database.db, String(res.json().position.id)))!;
    expect([d.referenceProbability, d.referenceVenueCount]).toEqual([null, null]);
    expect(d.decisionContext).toMatchObject({ referenceProbability: null, referenceVenueCount: null });
  });
});

describe('POST /api/agent/pm/opportunity', () => {
  it('records abstained / forecast_only once per decisionId and refuses a forecast on other kinds', async () => {
    const { key, keyId } = await t.newKey(['read']);
    const m = markets[0]!;
    const body = { kind: 'forecast_only', source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, forecastProbability: 60, decisionId: 'cycle-1', thesis: 'watching' };
    const first = await post(key, 'opportunity', body);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ opportunityKind: 'forecast_only', result: 'quoted', idempotentReplay: false, thesis: 'watching' });
    const again = await post(key, 'opportunity', body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ decisionUuid: first.json().decisionUuid, idempotentReplay: true });
    expect((await post(key, 'opportunity', { kind: 'abstained', reasonCode: 'no_edge', cohort: { universeSize: 40, horizon: '7d' } })).statusCode).toBe(201);
    expect((await post(key, 'opportunity', { kind: 'forecast_only' })).statusCode).toBe(400);
    expect((await post(key, 'opportunity', { kind: 'abstained', forecastProbability: 50 })).statusCode).toBe(400);
    expect((await decisionsOf(keyId)).map((d) => d.opportunity_kind)).toEqual(['forecast_only', 'abstained']);
    // Reference B9: the opportunity's eventId is the market's internal integer id (hashed as a number).
    const market = (await readVenueMarket(t.ctx.database, t.clock, m.source, m.slug))!;
    expect(Number.isInteger(market.eventId)).toBe(true);
    const stored = (await findDecisionByUuid(t.ctx.database.db, first.json().decisionUuid))!;
    expect(stored.eventId).toBe(market.eventId);
    expect(decisionContentHash(stored as unknown as Record<string, unknown>, stored.contentHashFields)).toBe(stored.contentHash);
  });

  it('keeps an API key pasted into a thesis or decisionId out of the public record, and still dedups the decisionId', async () => {
    const { key } = await t.newKey(['read']);
    const m = markets[0]!;
    const body = { kind: 'forecast_only', source: m.source, slug: m.slug, outcomeExternalMarketId: m.yesId, forecastProbability: 55, decisionId: `d-${key}`, thesis: `my key is ${key}` };
    const first = await post(key, 'opportunity', body);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ thesis: 'my key is sk_live_[redacted]' });
    const stored = (await findDecisionByUuid(t.ctx.database.db, first.json().decisionUuid))!;
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(decisionContentHash(stored as unknown as Record<string, unknown>, stored.contentHashFields)).toBe(stored.contentHash);
    expect((await post(key, 'opportunity', body)).json()).toMatchObject({ decisionUuid: first.json().decisionUuid, idempotentReplay: true });
  });
});

describe('GET /api/agent/pm/discover', () => {
  it('lists open binary markets on trading venues with quote hints, openable first and pinned last', async () => {
    const { key } = await t.newKey(['read']);
    const res = await t.app.inject({ method: 'GET', url: '/api/agent/pm/discover?limit=50', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.length).toBeGreaterThan(0);
    for (const item of body.data) {
      expect(['kalshi', 'polymarket']).toContain(item.source);
      expect(item.quoteHint).toMatchObject({ endpoint: 'POST /api/agent/pm/quote', stakeMusdMin: 10 });
      expect(item.outcomes[0].externalMarketId).toEqual(expect.any(String));
    }
    const tiers = body.data.map((i: { pinned: boolean; eligible: boolean }) => (i.pinned ? 2 : i.eligible ? 0 : 1));
    expect([...tiers].sort()).toEqual(tiers);
    expect(body.meta.sourceHealth.map((h: { slug: string }) => h.slug)).toEqual(['polymarket', 'kalshi']);
    expect(body.observation.rowCount).toBe(body.data.length);
    expect((await t.app.inject({ method: 'GET', url: '/api/agent/pm/discover?sort=nope', headers: bearer(key) })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/agent/pm/discover?limit=51', headers: bearer(key) })).statusCode).toBe(400);
  });
});

// The shared security suite on every PM trading route.
const m0 = () => markets[0]!;
keyedRouteSecurity(() => defaults, { method: 'POST', url: '/api/agent/pm/quote', scope: 'read', payload: () => ({ source: m0().source, slug: m0().slug, outcomeExternalMarketId: m0().yesId, stakeMusd: 10 }) });
keyedRouteSecurity(() => defaults, { method: 'POST', url: '/api/agent/pm/open', scope: 'trade:pm', tradeWrite: true, payload: () => openBody(m0(), { stakeMusd: 10 }) });
keyedRouteSecurity(() => defaults, { method: 'GET', url: '/api/agent/positions/pm', scope: 'read' });
keyedRouteSecurity(() => defaults, { method: 'GET', url: '/api/agent/pm/discover', scope: 'read' });
keyedRouteSecurity(() => defaults, { method: 'POST', url: '/api/agent/pm/opportunity', scope: 'read', payload: { kind: 'abstained' } });
