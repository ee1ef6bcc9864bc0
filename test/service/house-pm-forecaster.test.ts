import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleFor } from '../../src/domain/api-keys.js';
import { ensureHouseAgents } from '../../src/services/house-agents.js';
import { PM_FORECASTER_PROFILES, PM_FORECASTER_STRATEGY, runPmForecaster, type PmForecastOutcome } from '../../src/services/house-pm-forecaster.js';
import { settlePmPositions, PM_SETTLEMENT_INTERVAL_MS } from '../../src/services/pm-trading-settlement.js';
import { checkBooks } from '../../src/services/doctor.js';
import { findKey } from '../../src/storage/keys-repo.js';
import { ManualClock } from '../../src/util/clock.js';
import { buildJobs } from '../../src/workers/jobs.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';

// A few seconds past a minute, like a real start; the fast profile (flash markets of minutes).
const START = Date.UTC(2026, 10, 23, 9, 0, 7);
const MINUTE = 60_000;
const INGEST_EVERY_MS = 20_000;

type Decisions = { count: number; decisions: Record<string, any>[] };

describe('the PM house forecaster (fast profile, injected clock)', () => {
  let t: PmTestApp;
  let clock: ManualClock;
  let handle: string;
  const firstSeen: { open: number | null; settled: number | null } = { open: null, settled: null };
  const outcomes: PmForecastOutcome[] = [];

  beforeAll(async () => {
    clock = new ManualClock(START);
    t = await createPmApp({ clock, seed: 'forecaster-test' });
    const agents = await ensureHouseAgents(t.ctx.database.db);
    const agent = agents.find((a) => a.strategy === PM_FORECASTER_STRATEGY)!;
    const key = (await findKey(t.ctx.database.db, agent.keyId))!;
    handle = handleFor(key.id, key.agentName);
    const deps = { database: t.ctx.database, clock, profile: 'fast' as const };
    // 20 simulated minutes as the scheduler would run them: ingest every 20 s, the forecaster
    // every minute, settlement every minute; after each step, read what the public API shows.
    let lastStep = -Infinity;
    let lastSettle = -Infinity;
    for (let at = START; at <= START + 20 * MINUTE; at += INGEST_EVERY_MS) {
      clock.set(at);
      await t.ingest.run(at);
      if (at - lastStep >= PM_FORECASTER_PROFILES.fast.stepMs) {
        outcomes.push(...(await runPmForecaster(deps, at)));
        lastStep = at;
      }
      if (at - lastSettle >= PM_SETTLEMENT_INTERVAL_MS) {
        await settlePmPositions(t.ctx.database, at);
        lastSettle = at;
      }
      if (firstSeen.open === null) {
        const open = await t.get<Decisions>(`/api/arena/decisions?status=open&agent=${handle}`);
        if (open.body.count > 0) firstSeen.open = at - START;
      }
      if (firstSeen.settled === null) {
        const settled = await t.get<Decisions>(`/api/arena/decisions?agent=${handle}`);
        if (settled.body.count > 0) firstSeen.settled = at - START;
      }
      if (firstSeen.open !== null && firstSeen.settled !== null && at - START >= 12 * MINUTE) break;
    }
  }, 240_000);
  afterAll(async () => {
    await t.close();
  });

  it('shows open decisions within 2 minutes of start and settled ones within 20', () => {
    console.log(`forecaster: first open decision after ${firstSeen.open! / 1000} s, first settled after ${firstSeen.settled! / 1000} s (simulated clock)`);
    expect(firstSeen.open).not.toBeNull();
    expect(firstSeen.open!).toBeLessThanOrEqual(2 * MINUTE);
    expect(firstSeen.settled).not.toBeNull();
    expect(firstSeen.settled!).toBeLessThanOrEqual(20 * MINUTE);
  });

  it('opens through the PM engine with its forecast, thesis and trace on the decision', async () => {
    const opened = outcomes.filter((o) => o.status === 'opened');
    expect(opened.length).toBeGreaterThan(0);
    const settled = await t.get<Decisions>(`/api/arena/decisions?agent=${handle}&includeOpportunities=false`);
    const d = settled.body.decisions[0]!;
    expect(d.agent).toBe(handle);
    expect(['won', 'lost']).toContain(d.result);
    expect(d.agentForecastProbability).toBeGreaterThan(0);
    expect(d.agentForecastProbability).toBeLessThan(100);
    expect(d.edgePoints).not.toBeNull();
    expect(d.realizedPaperTrade.positionId).toBeTruthy();
    const artifact = await t.get<Record<string, any>>(`/api/arena/decisions/${d.decisionUuid}`);
    expect(artifact.body.thesis).toMatch(/ at .* vs own /);
    expect(artifact.body.runId).toMatch(/^pm-forecaster-\d+$/);
    expect(artifact.body.decisionId).toContain(':');
    // Positions are ordinary PM positions: the books balance.
    expect((await checkBooks(t.ctx.database.db)).ok).toBe(true);
  });

  it('serves open rows as pending with no scores (status=open), and feeds Track B', async () => {
    const open = await t.get<Decisions>(`/api/arena/decisions?status=open&agent=${handle}`);
    expect(open.status).toBe(200);
    for (const d of open.body.decisions) {
      expect(d).toMatchObject({ result: 'pending', pnlMusd: 0, brier: null, agentBrier: null, realizedPaperTrade: null });
    }
    expect(Number(open.headers['x-total-count'])).toBe(open.body.count);
    const card = await t.get<Record<string, any>>(`/api/arena/agents/${handle}/scorecard`);
    expect(card.status).toBe(200);
    expect(card.body.forecastSkill).toBeTruthy();
    expect(JSON.stringify(card.body.forecastSkill)).not.toBe('null');
  });

  it('refuses status=open without a house agent', async () => {
    for (const url of ['/api/arena/decisions?status=open', '/api/arena/decisions?status=open&agent=a999-nobody']) {
      const res = await t.get(url);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('status_open_requires_house_agent');
    }
  });

  it('replays instead of opening twice when a step runs again, and is a scheduler job', async () => {
    const deps = { database: t.ctx.database, clock, profile: 'fast' as const };
    expect(await runPmForecaster(deps, clock.now())).toEqual([]);
    const job = buildJobs({ database: t.ctx.database, market: t.market, config: { simSeed: 'x', simProfile: 'fast', marketData: { kind: 'sim' } } }).find(
      (j) => j.name === 'house-pm-forecaster',
    );
    expect(job?.intervalMs).toBe(PM_FORECASTER_PROFILES.fast.stepMs);
  });
});
