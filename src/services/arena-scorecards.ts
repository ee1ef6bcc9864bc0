import { handleFor } from '../domain/api-keys.js';
import { evidenceCoverage, leakageClean } from '../domain/audit-stats.js';
import { shareOf } from '../domain/money.js';
import { auditCountsOf } from '../storage/account-repo.js';
import { EVALUATION_POLICY_VERSION, EXECUTION_POLICY_VERSION } from '../arena/decisions.js';
import { trackA, trackB } from '../arena/scorecard.js';
import { listDecisionScores } from '../storage/arena-decisions-repo.js';
import { insertRun, latestRunOf, listScorecardCandidates, loadTrackAFacts, type RunRow } from '../storage/arena-scorecards-repo.js';
import type { Db, Queryable } from '../storage/db.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';

const runRef = (run: RunRow | null) => (run ? { id: run.id, computedAt: run.computedAt, contentHash: run.contentHash } : null);

/** Both tracks of one agent, computed now, plus what a run freezes beside them. */
export async function computeScorecard(db: Queryable, keyId: number) {
  const { realized, tradeCount, futuresOpens, futuresOpensWithStop } = await loadTrackAFacts(db, keyId);
  const decisions = await listDecisionScores(db, keyId);
  const pmEntries = decisions
    .filter((d) => (d.settlementLabel === 'won' || d.settlementLabel === 'lost') && d.marketProbability !== null)
    .map((d) => ({ probability: d.marketProbability!, won: d.settlementLabel === 'won' }));
  const audit = (await auditCountsOf(db, [keyId])).get(keyId)!;
  const scorecard = trackA({
    realized,
    tradeCount,
    pmEntries,
    stopCoverage: shareOf(futuresOpensWithStop, futuresOpens),
    evidenceCoverage: evidenceCoverage(audit),
    leakageClean: leakageClean(audit),
  });
  const { forecastSkill, contributions } = trackB(decisions);
  const latest = await latestRunOf(db, keyId);
  const response = {
    scorecard,
    calibrationBasis: 'market_entry' as const,
    forecastSkill,
    evaluationPolicyVersion: EVALUATION_POLICY_VERSION,
    executionPolicyVersion: EXECUTION_POLICY_VERSION,
    latestRun: runRef(latest),
  };
  return {
    response,
    contributions,
    latest,
    inputCount: decisions.length,
    forecastedCount: decisions.filter((d) => d.agentForecastProbability !== null).length,
    metricsHash: sha256Hex(`${scorecard?.contentHash ?? 'null'}:${forecastSkill.contentHash}`),
  };
}

/** The scorecard served live, read from one snapshot like a frozen run (see `freezeRun`). */
export function liveScorecard(db: Db, keyId: number): ReturnType<typeof computeScorecard> {
  return db.transaction((tx) => computeScorecard(tx, keyId), { isolationLevel: 'repeatable read' });
}

/**
 * Freezes a run for one agent when its scores changed since its latest run; returns the new id.
 * Its reads share one snapshot: a settlement or risk-sweep batch committing between them froze a
 * torn result (trades counted that the realized series did not hold), hashed and kept for hours.
 */
export function freezeRun(db: Db, keyId: number, agentName: string | null, nowMs: number): Promise<number | null> {
  return db.transaction((tx) => freezeRunIn(tx, keyId, agentName, nowMs), { isolationLevel: 'repeatable read' });
}

async function freezeRunIn(db: Queryable, keyId: number, agentName: string | null, nowMs: number): Promise<number | null> {
  const sc = await computeScorecard(db, keyId);
  if (sc.latest?.metricsHash === sc.metricsHash) return null;
  const handle = handleFor(keyId, agentName);
  // the scorecard response as served when frozen (supplement 2.13): the route serves it with the handle first
  const resultJson = JSON.parse(JSON.stringify({ handle, ...sc.response })) as unknown;
  return insertRun(db, {
    keyId,
    agent: handle,
    computedAtMs: nowMs,
    evaluationPolicyVersion: EVALUATION_POLICY_VERSION,
    executionPolicyVersion: EXECUTION_POLICY_VERSION,
    windowKey: null,
    inputCount: sc.inputCount,
    forecastedCount: sc.forecastedCount,
    settledForecastCount: sc.response.forecastSkill.forecastedCount,
    cohort: { v: 1, universe: 'all', category: null, source: null, horizon: null },
    resultJson,
    contentHash: sha256Hex(canonicalJson(resultJson)),
    metricsHash: sc.metricsHash,
    contributions: sc.contributions,
  });
}

/** The scorecard-runs job: one pass over public agents with activity. */
export async function freezeScorecardRuns(db: Db, nowMs: number): Promise<number> {
  let frozen = 0;
  for (const agent of await listScorecardCandidates(db)) {
    if ((await freezeRun(db, agent.keyId, agent.agentName, nowMs)) !== null) frozen += 1;
  }
  return frozen;
}

/** Compact list item (no resultJson). */
export function compactRun(r: RunRow) {
  return {
    id: r.id,
    computedAt: r.computedAt,
    evaluationPolicyVersion: r.evaluationPolicyVersion,
    executionPolicyVersion: r.executionPolicyVersion,
    windowKey: r.windowKey,
    inputCount: r.inputCount,
    forecastedCount: r.forecastedCount,
    settledForecastCount: r.settledForecastCount,
    contentHash: r.contentHash,
  };
}

export function fullRun(r: RunRow) {
  return { ...compactRun(r), apiKeyId: r.keyId, agent: r.agent, cohort: r.cohort, resultJson: r.resultJson, contributions: r.contributions };
}
