import { describe, expect, it } from 'vitest';
import { calibrationError, deflatedSharpe, maxDrawdown, MIN_SETTLED_FORECASTS, normalCdf, sharpe, sortino, trackA, trackB, type ForecastDecision } from '../../src/arena/scorecard.js';
import { brierOf } from '../../src/arena/decisions.js';
import { rankScore, wilsonLowerBound } from '../../src/arena/ranking.js';
import { rankCompetition } from '../../src/arena/competitions.js';
import { allTimeSparkline, windowedSparkline } from '../../src/arena/sparkline.js';
import { resolveWindow } from '../../src/arena/windows.js';
import { decodeCursor, encodeCursor } from '../../src/arena/dataset-cursor.js';

// Worked example used in the README: per-trade realized PnL 100, −50, 200, −100, 50.
const r = [100, -50, 200, -100, 50];

describe('Track A formulas (hand-computed)', () => {
  it('computes Sharpe, Sortino, deflated Sharpe and drawdown', () => {
    // mean 40; sample sd √(57000/4) = 119.3734; Sharpe = 0.3350831.
    expect(sharpe(r)).toBeCloseTo(0.3350831266, 9);
    // downside deviation √((50² + 100²)/5) = 50; Sortino = 40/50.
    expect(sortino(r)).toBe(0.8);
    // SR 0.374634 (population sd), skew 0.138023, kurtosis 1.720683 → z 0.7593675 → Φ(z).
    expect(deflatedSharpe(r)).toBeCloseTo(0.7761836, 6);
    // cumulative 100, 50, 250, 150, 200: worst fall 250 → 150.
    expect(maxDrawdown(r)).toBe(100);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021, 6);
    expect(sharpe([5])).toBeNull();
    expect(sortino([5, 6])).toBeNull();
  });

  it('builds the scorecard, null for a thin record', () => {
    const pmEntries = [
      { probability: 60, won: true },
      { probability: 30, won: false },
      { probability: 65, won: false },
      { probability: 20, won: true },
    ];
    const card = trackA({ realized: r, tradeCount: 7, pmEntries, stopCoverage: null, evidenceCoverage: null, leakageClean: null })!;
    expect(card.schema).toBe('svc.agent.scorecard.v1');
    expect(card.sampleSize).toBe(5);
    expect(card.metrics).toMatchObject({
      realized_pnl_musd: 200,
      trade_count: 7,
      decided_count: 5,
      win_rate: 0.6,
      expectancy_musd: 40,
      max_drawdown_musd: 100,
      sortino: 0.8,
      stop_coverage: null,
    });
    // 350 gross wins / 150 gross losses; (350/3) / (150/2).
    expect(card.metrics.profit_factor).toBeCloseTo(2.3333333333, 9);
    expect(card.metrics.reward_to_risk).toBeCloseTo(1.5555555556, 9);
    // Brier of the prices paid: (.16 + .09 + .4225 + .64) / 4.
    expect(card.metrics.brier_score).toBeCloseTo(0.328125, 10);
    // ECE: bucket 6 {.6 won, .65 lost} → 2/4·|.625 − .5|; bucket 3 → 1/4·.3; bucket 2 → 1/4·.8.
    expect(card.metrics.calibration_error).toBeCloseTo(0.3375, 10);
    expect(calibrationError(pmEntries)).toBeCloseTo(0.3375, 10);
    expect(trackA({ realized: r, tradeCount: 7, pmEntries, stopCoverage: null, evidenceCoverage: null, leakageClean: null }))!.toEqual(card);
    expect(trackA({ realized: [1, 2, 3, -1], tradeCount: 4, pmEntries: [], stopCoverage: null, evidenceCoverage: null, leakageClean: null })).toBeNull();
    // money as the board sends it: summed in decimal, 8 places (0.1 + 0.2 is not 0.30000000000000004)
    expect(trackA({ realized: [0.1, 0.2, 0.123456789, -0.05, -0.05], tradeCount: 5, pmEntries: [], stopCoverage: null, evidenceCoverage: null, leakageClean: null })!.metrics).toMatchObject({
      realized_pnl_musd: 0.32345679,
      expectancy_musd: 0.06469136,
      win_rate: 0.6,
    });
    expect(brierOf(47, 'lost')).toBe(0.2209); // 0.22089999999999999 in floating point
    expect(trackA({ realized: [1, 2, 3, 4, 5], tradeCount: 5, pmEntries: [], stopCoverage: null, evidenceCoverage: null, leakageClean: null })!.metrics.profit_factor).toBeNull();
  });
});

describe('Track B forecast skill (hand-computed)', () => {
  const won = (f: number | null, m = 60): ForecastDecision => ({ settlementLabel: 'won', agentForecastProbability: f, marketProbability: m, referenceProbability: 50 });
  const lost = (f: number | null, m = 40): ForecastDecision => ({ settlementLabel: 'lost', agentForecastProbability: f, marketProbability: m, referenceProbability: 50 });
  const decisions: ForecastDecision[] = [
    ...Array.from({ length: 10 }, () => won(80)),
    ...Array.from({ length: 10 }, () => lost(30)),
    won(null),
    lost(null),
    { settlementLabel: 'void', agentForecastProbability: 90, marketProbability: 50, referenceProbability: null },
    { settlementLabel: null, agentForecastProbability: 90, marketProbability: 50, referenceProbability: null },
  ];

  it('ranks at the gate with Brier, log score and skill against market and reference', () => {
    const { forecastSkill, contributions } = trackB(decisions);
    expect(forecastSkill).toMatchObject({ schema: 'svc.agent.forecastSkill.v1', basis: 'agent_forecast', state: 'ranked', decidedCount: 22, forecastedCount: 20, referencedCount: 20, minSettledForecasts: 20 });
    expect(forecastSkill.forecastCoverage).toBeCloseTo(20 / 22, 9);
    // agent: (.2² ·10 + .3² ·10)/20 = .065; market: .16 both ways; reference 50: .25.
    expect(forecastSkill.metrics.agentBrier).toBeCloseTo(0.065, 10);
    expect(forecastSkill.metrics.marketBrier).toBeCloseTo(0.16, 10);
    expect(forecastSkill.metrics.referenceBrier).toBeCloseTo(0.25, 10);
    expect(forecastSkill.metrics.brierSkillVsMarket).toBeCloseTo(1 - 0.065 / 0.16, 10);
    expect(forecastSkill.metrics.brierSkillVsReference).toBeCloseTo(1 - 0.065 / 0.25, 10);
    // (−ln .8 − ln .7) / 2.
    expect(forecastSkill.metrics.agentLogScore).toBeCloseTo(0.2899092476, 9);
    expect(contributions).toEqual({
      total: 24,
      included: 20,
      excluded: 4,
      exclusionReasons: { unsettled: 1, no_forecast: 2, void: 1, below_gate: 0 },
      meanBrierContribution: forecastSkill.metrics.agentBrier,
      meanLogScoreContribution: forecastSkill.metrics.agentLogScore,
    });
  });

  it('shows counts, not a number, below the sample gate', () => {
    const { forecastSkill, contributions } = trackB(decisions.slice(0, MIN_SETTLED_FORECASTS - 1));
    expect(forecastSkill.state).toBe('insufficient_data');
    expect(forecastSkill.forecastedCount).toBe(19);
    expect(Object.values(forecastSkill.metrics).every((v) => v === null)).toBe(true);
    expect(contributions.exclusionReasons.below_gate).toBe(19);
    expect(contributions.included).toBe(0);
  });
});

describe('ranking, windows, sparklines and cursors', () => {
  it('Wilson bound and rank score', () => {
    expect(wilsonLowerBound(5, 5)).toBeCloseTo(0.5655085052, 9);
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(rankScore(1000, 9, 11)).toBeCloseTo(523.0138624, 6);
    expect(rankScore(-50, 1, 10)).toBe(-50);
  });

  it('competition gate: rank null below one decided trade', () => {
    const ranked = rankCompetition([
      { handle: 'a1-x', realizedPnl: 0, decided: 0 },
      { handle: 'a2-y', realizedPnl: -5, decided: 1 },
      { handle: 'a3-z', realizedPnl: 10, decided: 2 },
    ]);
    expect(ranked.map((r) => [r.handle, r.rank])).toEqual([
      ['a3-z', 1],
      ['a2-y', 2],
      ['a1-x', null],
    ]);
  });

  it('windows and sparklines', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    expect(resolveWindow('today', now, null)).toEqual({ kind: 'days', fromDay: '2026-11-22', days: ['2026-11-22'] });
    expect(resolveWindow('3m', now, now - 10 * 86_400_000)).toEqual({ kind: 'all' });
    expect(resolveWindow('3m', now, now - 100 * 86_400_000)).toMatchObject({ kind: 'days', fromDay: '2026-08-25' });
    const days = ['2026-11-20', '2026-11-21', '2026-11-22'];
    const rows = [
      { day: '2026-11-20', pnl: 10, realized: true },
      { day: '2026-11-22', pnl: -4, realized: true },
    ];
    expect(windowedSparkline(days, rows)).toEqual([0, 10, 10, 6]);
    // all-time total 106: 100 realized before the range.
    expect(allTimeSparkline(days, rows, 106)).toEqual([110, 110, 106]);
    expect(allTimeSparkline(days, [], 106)).toEqual([]);
  });

  it('cursors round-trip and reject foreign text', () => {
    expect(decodeCursor(encodeCursor({ d: 12, o: 3 }))).toEqual({ d: 12, o: 3 });
    for (const bad of ['', 'abc', Buffer.from('{"v":1,"d":-1,"o":0}').toString('base64url'), Buffer.from('[]').toString('base64url')]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });
});
