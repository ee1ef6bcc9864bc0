import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Decimal } from '../../src/domain/money.js';
import { freezeScorecardRuns } from '../../src/services/arena-scorecards.js';
import { recordDecision, settleDecision } from '../../src/storage/arena-decisions-repo.js';
import { revokeKey, updateKey } from '../../src/storage/keys-repo.js';
import { canonicalJson, sha256Hex } from '../../src/util/canonical-json.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { agentKey, trades } from '../support/arena.js';

describe('Scorecards and scorecard runs', { timeout: 120_000 }, () => {
  let t: TestApp;
  let pub: number;
  let thin: number;
  let gone: number;
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  type Spec = [keyId: number, forecast: number | null, market: number, label: 'won' | 'lost' | 'void' | null];
  /** Records (and settles) decisions in one transaction. */
  const decide = async (...specs: Spec[]) => {
    await t.testDb.database.db.transaction(async (tx) => {
      for (const [keyId, forecast, market, label] of specs) {
        const d = await recordDecision(tx, { keyId, opportunityKind: 'opened', agentForecastProbability: forecast, marketProbability: market, referenceProbability: 50, createdAtMs: t.clock.now() });
        if (label) await settleDecision(tx, { decisionUuid: d.decisionUuid }, { label, pnlMusd: new Decimal(label === 'won' ? 10 : -10), settledAtMs: t.clock.now() });
      }
    });
  };

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    pub = await agentKey(db, 'Forecaster');
    thin = await agentKey(db, 'Thin');
    gone = await agentKey(db, 'Gone');
    await trades(db, pub, 'spot', [100, -50, 200, -100, 50], t.clock.now() - 3_600_000);
    await trades(db, thin, 'spot', [5], t.clock.now());
    await decide(
      ...Array.from({ length: 10 }, (): Spec => [pub, 80, 60, 'won']),
      ...Array.from({ length: 9 }, (): Spec => [pub, 30, 40, 'lost']),
      [pub, null, 40, 'lost'],
      [pub, 70, 40, null],
      [gone, 70, 40, 'won'],
    );
  }, 300_000);
  afterAll(() => t?.close(), 120_000);

  it('serves both tracks; Track B stays insufficient below 20 settled forecasts', async () => {
    const { status, body, headers } = await get(`/api/arena/agents/a${pub}-forecaster/scorecard`);
    expect(status).toBe(200);
    expect(headers['cache-control']).toBe('public, max-age=60');
    expect(body).toMatchObject({ calibrationBasis: 'market_entry', evaluationPolicyVersion: 'eval-1', executionPolicyVersion: 'paper_execution_v1', latestRun: null });
    expect(body.scorecard.metrics).toMatchObject({ realized_pnl_musd: 200, decided_count: 5, sortino: 0.8, max_drawdown_musd: 100 });
    expect(body.scorecard.metrics.sharpe).toBeCloseTo(0.3350831266, 9);
    expect(body.forecastSkill).toMatchObject({ state: 'insufficient_data', basis: 'agent_forecast', decidedCount: 20, forecastedCount: 19, minSettledForecasts: 20 });
    expect(body.forecastSkill.metrics.agentBrier).toBeNull();
    const thinCard = (await get(`/api/arena/agents/a${thin}-thin/scorecard`)).body;
    expect(thinCard.scorecard).toBeNull();
  });

  it('freezes immutable runs whose hash covers resultJson, only when scores change', async () => {
    expect(await freezeScorecardRuns(t.testDb.database.db, t.clock.now())).toBe(3);
    expect(await freezeScorecardRuns(t.testDb.database.db, t.clock.now())).toBe(0);
    t.clock.advance(60_000);
    await decide([pub, 80, 60, 'won']);
    expect(await freezeScorecardRuns(t.testDb.database.db, t.clock.now())).toBe(1);

    const list = (await get(`/api/arena/agents/a${pub}-forecaster/scorecard/runs`)).body;
    expect(list).toMatchObject({ handle: `a${pub}-forecaster`, limit: 25, nextBefore: null });
    expect(list.runs).toHaveLength(2);
    expect(list.runs[0].id).toBeGreaterThan(list.runs[1].id);
    expect(list.runs[0].resultJson).toBeUndefined();
    expect(list.runs[0]).toMatchObject({ windowKey: null, inputCount: 22, forecastedCount: 21, settledForecastCount: 20 });

    const run = await get(`/api/arena/scorecard-runs/${list.runs[0].id}`);
    expect(run.status).toBe(200);
    // immutable, but a shared cache keeps it at most a day: it answers 404 once its agent is unpublished
    expect(run.headers['cache-control']).toBe('public, max-age=86400, immutable');
    expect(run.body).toMatchObject({ apiKeyId: pub, agent: `a${pub}-forecaster`, cohort: { v: 1, universe: 'all', category: null, source: null, horizon: null } });
    expect(sha256Hex(canonicalJson(run.body.resultJson))).toBe(run.body.contentHash);
    expect(run.body.resultJson.forecastSkill.state).toBe('ranked');
    expect(run.body.contributions).toMatchObject({ total: 22, included: 20, exclusionReasons: { unsettled: 1, no_forecast: 1, void: 0, below_gate: 0 } });
    expect(run.body.contributions.meanBrierContribution).toBe(run.body.resultJson.forecastSkill.metrics.agentBrier);
    // The live scorecard now points at the newest run.
    const card = (await get(`/api/arena/agents/a${pub}-forecaster/scorecard`)).body;
    expect(card.latestRun).toEqual({ id: list.runs[0].id, computedAt: list.runs[0].computedAt, contentHash: list.runs[0].contentHash });
    // resultJson is the response as served when frozen: the same fields, the handle included
    expect(Object.keys(run.body.resultJson).sort()).toEqual(Object.keys(card).sort());
    expect(run.body.resultJson.handle).toBe(`a${pub}-forecaster`);
    await expect(t.testDb.database.db.execute(sql`update arena_scorecard_runs set agent = 'x'`)).rejects.toThrow();
    await expect(t.testDb.database.db.execute(sql`delete from arena_scorecard_runs`)).rejects.toThrow();
  });

  it('pages runs by keyset and clamps limit', async () => {
    const first = (await get(`/api/arena/agents/a${pub}-forecaster/scorecard/runs?limit=1`)).body;
    expect(first.runs).toHaveLength(1);
    expect(first.nextBefore).toBe(first.runs[0].id);
    const second = (await get(`/api/arena/agents/a${pub}-forecaster/scorecard/runs?limit=1&before=${first.nextBefore}`)).body;
    expect(second.runs[0].id).toBeLessThan(first.runs[0].id);
    expect(second.nextBefore).toBeNull();
    expect((await get(`/api/arena/agents/a${pub}-forecaster/scorecard/runs?limit=0`)).body.limit).toBe(1);
    expect((await get(`/api/arena/agents/a${pub}-forecaster/scorecard/runs?limit=500`)).body.limit).toBe(100);
    expect((await get(`/api/arena/agents/a${pub}-forecaster/scorecard/runs?before=0`)).status).toBe(400);
  });

  it('400 for malformed handles, 404 for non-public or revoked agents and unknown runs', async () => {
    for (const path of ['scorecard', 'scorecard/runs']) {
      expect((await get(`/api/arena/agents/not-a-handle/${path}`)).status).toBe(400);
      expect((await get(`/api/arena/agents/a999-nobody/${path}`)).status).toBe(404);
      // well-formed ids no key can have (beyond PostgreSQL integer, beyond a double's precision) are unknown, not malformed
      for (const id of ['2147483648', '9007199254740993', '99999999999999999999']) {
        expect((await get(`/api/arena/agents/a${id}-nobody/${path}`)).status).toBe(404);
      }
    }
    const goneRuns = (await get(`/api/arena/agents/a${gone}-gone/scorecard/runs`)).body.runs;
    await revokeKey(t.testDb.database.db, gone, new Date(t.clock.now()));
    expect((await get(`/api/arena/agents/a${gone}-gone/scorecard`)).status).toBe(404);
    expect((await get(`/api/arena/scorecard-runs/${goneRuns[0].id}`)).status).toBe(404);
    await updateKey(t.testDb.database.db, thin, { isPublic: false });
    expect((await get(`/api/arena/agents/a${thin}-thin/scorecard/runs`)).status).toBe(404);
    expect((await get('/api/arena/scorecard-runs/99999')).status).toBe(404);
    expect((await get('/api/arena/scorecard-runs/abc')).status).toBe(400);
  });
});
