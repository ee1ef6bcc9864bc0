import { Decimal, shareOf, toWire } from '../domain/money.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';
import { brierOf, EVALUATION_POLICY_VERSION, type SettlementLabel } from './decisions.js';

/** Scorecard formulas (supplement §2.13, §3.7); documented in the README. */
export const SCORECARD_SCHEMA = 'svc.agent.scorecard.v1';
export const FORECAST_SKILL_SCHEMA = 'svc.agent.forecastSkill.v1';
/** Track A is null below this many decided trades (a thin record). */
export const SCORECARD_MIN_DECIDED = 5;
/** Track B ranks once this many settled decisions carry the agent's own forecast. */
export const MIN_SETTLED_FORECASTS = 20;
export const LOG_SCORE_CLIP = 0.001;
export const ECE_BUCKETS = 10;

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const meanOrNull = (xs: number[]) => (xs.length > 0 ? mean(xs) : null);
const decimalSum = (xs: number[]) => xs.reduce((s, x) => s.plus(x), new Decimal(0));
const round = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 1e10) / 1e10);

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 erf, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Per-trade Sharpe: mean / sample standard deviation; null below 2 trades or without spread. */
export function sharpe(r: number[]): number | null {
  if (r.length < 2) return null;
  const m = mean(r);
  const sd = Math.sqrt(r.reduce((s, x) => s + (x - m) ** 2, 0) / (r.length - 1));
  return sd > 0 ? m / sd : null;
}

/** Sortino: mean / downside deviation √(Σ min(r, 0)² / n); null without a losing trade. */
export function sortino(r: number[]): number | null {
  if (r.length < 2) return null;
  const dd = Math.sqrt(r.reduce((s, x) => s + Math.min(x, 0) ** 2, 0) / r.length);
  return dd > 0 ? mean(r) / dd : null;
}

/**
 * Deflated Sharpe (Bailey & López de Prado) for a single trial, i.e. SR* = 0:
 * Φ( SR·√(n−1) / √(1 − γ3·SR + (γ4 − 1)/4·SR²) ) with γ3 skewness and γ4 (non-excess) kurtosis
 * of the per-trade PnL, SR the per-trade Sharpe (population moments).
 */
export function deflatedSharpe(r: number[]): number | null {
  const n = r.length;
  if (n < 3) return null;
  const m = mean(r);
  const sd = Math.sqrt(r.reduce((s, x) => s + (x - m) ** 2, 0) / n);
  if (sd === 0) return null;
  const sr = m / sd;
  const skew = r.reduce((s, x) => s + ((x - m) / sd) ** 3, 0) / n;
  const kurt = r.reduce((s, x) => s + ((x - m) / sd) ** 4, 0) / n;
  const denom = 1 - skew * sr + ((kurt - 1) / 4) * sr * sr;
  if (!(denom > 0)) return null;
  return normalCdf((sr * Math.sqrt(n - 1)) / Math.sqrt(denom));
}

/** Peak-to-trough fall of cumulative realized PnL, starting from 0 (a positive amount). */
export function maxDrawdown(r: number[]): number {
  let peak = 0;
  let cum = 0;
  let worst = 0;
  for (const x of r) {
    cum += x;
    peak = Math.max(peak, cum);
    worst = Math.max(worst, peak - cum);
  }
  return worst;
}

export interface SettledEntry {
  /** Market probability paid, 0..100. */
  probability: number;
  won: boolean;
}

/** 10-bucket expected calibration error of entry prices: Σ (n_b/N)·|mean p_b − win rate_b|. */
export function calibrationError(entries: SettledEntry[]): number | null {
  if (entries.length === 0) return null;
  const buckets = Array.from({ length: ECE_BUCKETS }, () => ({ n: 0, p: 0, w: 0 }));
  for (const e of entries) {
    const b = buckets[Math.min(ECE_BUCKETS - 1, Math.floor(e.probability / (100 / ECE_BUCKETS)))]!;
    b.n += 1;
    b.p += e.probability / 100;
    b.w += e.won ? 1 : 0;
  }
  return buckets.reduce((s, b) => (b.n === 0 ? s : s + (b.n / entries.length) * Math.abs(b.p / b.n - b.w / b.n)), 0);
}

export interface TrackAInput {
  /** Realized PnL of every realized trade (all venues), oldest first. */
  realized: number[];
  tradeCount: number;
  /** Settled (won/lost) PM entries at the market price paid. */
  pmEntries: SettledEntry[];
  /** Share of futures opens (positions) that carried a stop-loss, set at the open or later; null without futures positions. */
  stopCoverage: number | null;
  /** Share of writes with a run id and a decision id; null without writes (the ledger's counters). */
  evidenceCoverage: number | null;
  /** 1 every write followed a quote, 0 one did not, null no writes (from the ledger's counters). */
  leakageClean: 0 | 1 | null;
}

/** Track A (`svc.agent.scorecard.v1`); null for a thin record. */
export function trackA(input: TrackAInput) {
  const r = input.realized;
  const wins = r.filter((x) => x > 0);
  const losses = r.filter((x) => x < 0);
  const decided = wins.length + losses.length;
  if (decided < SCORECARD_MIN_DECIDED) return null;
  const grossWin = wins.reduce((s, x) => s + x, 0);
  const grossLoss = -losses.reduce((s, x) => s + x, 0);
  const total = decimalSum(r);
  const metrics = {
    // money and the win rate as the board and /performance send them (8 places, summed in decimal)
    realized_pnl_musd: toWire(total),
    trade_count: input.tradeCount,
    decided_count: decided,
    win_rate: shareOf(wins.length, decided),
    expectancy_musd: toWire(total.div(r.length)),
    profit_factor: grossLoss > 0 ? round(grossWin / grossLoss) : null,
    reward_to_risk: wins.length > 0 && losses.length > 0 ? round(grossWin / wins.length / (grossLoss / losses.length)) : null,
    sharpe: round(sharpe(r)),
    sortino: round(sortino(r)),
    deflated_sharpe: round(deflatedSharpe(r)),
    max_drawdown_musd: toWire(maxDrawdown(r)),
    brier_score: round(meanOrNull(input.pmEntries.map((e) => brierOf(e.probability, e.won ? 'won' : 'lost')!))),
    calibration_error: round(calibrationError(input.pmEntries)),
    stop_coverage: input.stopCoverage,
    evidence_coverage: input.evidenceCoverage,
    leakage_clean: input.leakageClean,
  };
  return { schema: SCORECARD_SCHEMA, sampleSize: r.length, returnsBasis: 'realized_pnl' as const, metrics, contentHash: sha256Hex(canonicalJson(metrics)) };
}

export interface ForecastDecision {
  settlementLabel: SettlementLabel | null;
  agentForecastProbability: number | null;
  marketProbability: number | null;
  referenceProbability: number | null;
}

const logScore = (forecast: number, won: boolean) => {
  const f = Math.min(1 - LOG_SCORE_CLIP, Math.max(LOG_SCORE_CLIP, forecast / 100));
  return -Math.log(won ? f : 1 - f);
};

/** Track B (`svc.agent.forecastSkill.v1`) and the per-decision contributions behind it. */
export function trackB(decisions: ForecastDecision[]) {
  const settled = decisions.filter((d) => d.settlementLabel === 'won' || d.settlementLabel === 'lost');
  const forecasted = settled.filter((d) => d.agentForecastProbability !== null && d.marketProbability !== null);
  const referenced = forecasted.filter((d) => d.referenceProbability !== null);
  const ranked = forecasted.length >= MIN_SETTLED_FORECASTS;
  const agentBriers = forecasted.map((d) => brierOf(d.agentForecastProbability, d.settlementLabel)!);
  const logScores = forecasted.map((d) => logScore(d.agentForecastProbability!, d.settlementLabel === 'won'));
  const agentBrier = meanOrNull(agentBriers);
  const marketBrier = meanOrNull(forecasted.map((d) => brierOf(d.marketProbability, d.settlementLabel)!));
  const referenceBrier = meanOrNull(referenced.map((d) => brierOf(d.referenceProbability, d.settlementLabel)!));
  const agentOnReferenced = meanOrNull(referenced.map((d) => brierOf(d.agentForecastProbability, d.settlementLabel)!));
  const skill = (own: number | null, base: number | null) => (own === null || base === null || base === 0 ? null : 1 - own / base);
  const metrics = ranked
    ? {
        agentBrier: round(agentBrier),
        agentLogScore: round(meanOrNull(logScores)),
        marketBrier: round(marketBrier),
        referenceBrier: round(referenceBrier),
        brierSkillVsMarket: round(skill(agentBrier, marketBrier)),
        brierSkillVsReference: round(skill(agentOnReferenced, referenceBrier)),
      }
    : { agentBrier: null, agentLogScore: null, marketBrier: null, referenceBrier: null, brierSkillVsMarket: null, brierSkillVsReference: null };
  const body = {
    schema: FORECAST_SKILL_SCHEMA,
    basis: 'agent_forecast' as const,
    evaluationPolicyVersion: EVALUATION_POLICY_VERSION,
    state: ranked ? ('ranked' as const) : ('insufficient_data' as const),
    decidedCount: settled.length,
    forecastedCount: forecasted.length,
    referencedCount: referenced.length,
    forecastCoverage: settled.length > 0 ? round(forecasted.length / settled.length) : null,
    minSettledForecasts: MIN_SETTLED_FORECASTS,
    metrics,
    cohorts: null,
  };
  const unsettled = decisions.filter((d) => d.settlementLabel === null).length;
  const voided = decisions.filter((d) => d.settlementLabel === 'void').length;
  const contributions = {
    total: decisions.length,
    included: ranked ? forecasted.length : 0,
    excluded: decisions.length - (ranked ? forecasted.length : 0),
    exclusionReasons: {
      unsettled,
      no_forecast: settled.length - forecasted.length,
      void: voided,
      below_gate: ranked ? 0 : forecasted.length,
    },
    meanBrierContribution: ranked ? round(agentBrier) : null,
    meanLogScoreContribution: ranked ? round(meanOrNull(logScores)) : null,
  };
  return { forecastSkill: { ...body, contentHash: sha256Hex(canonicalJson(body)) }, contributions };
}
