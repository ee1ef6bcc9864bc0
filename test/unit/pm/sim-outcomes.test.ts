import { describe, expect, it } from 'vitest';
import { seedKey } from '../../../src/marketdata/sim/random.js';
import { canonicalProbabilities } from '../../../src/pm/sim/path.js';
import { DAY_MS, regularQuestion, type Question } from '../../../src/pm/sim/questions.js';

/** The simulated prediction markets' outcomes against their prices (src/pm/sim/path.ts). */
const seed = 'sim-outcomes';
const key = seedKey(seed);
// decided, not about a coin price (those follow the simulated price path)
const questions = Array.from({ length: 3000 }, (_, j) => regularQuestion(seed, j)).filter((q) => q.winner !== null && !q.threshold && !q.pending);

/** Every outcome priced at time `at(q)`, in tenths of probability: mean price and share that won. */
function reliability(at: (q: Question) => number): { pairs: number; predicted: number; won: number }[] {
  const bins = Array.from({ length: 10 }, () => ({ pairs: 0, predicted: 0, won: 0 }));
  for (const q of questions) {
    canonicalProbabilities(key, q, at(q)).forEach((p, i) => {
      const bin = bins[Math.min(9, Math.floor(p * 10))]!;
      bin.pairs += 1;
      bin.predicted += p;
      if (i === q.winner) bin.won += 1;
    });
  }
  return bins.filter((b) => b.pairs >= 100).map((b) => ({ pairs: b.pairs, predicted: b.predicted / b.pairs, won: b.won / b.pairs }));
}

describe('simulated prediction markets: outcomes against prices', () => {
  it.each([
    ['an hour after opening', (q: Question) => q.openAt + 3_600_000],
    ['half-way', (q: Question) => (q.openAt + q.endAt) / 2],
    ['a day before the end', (q: Question) => q.endAt - DAY_MS],
  ])('are calibrated %s: outcomes priced near p win about p of the time', (_, at) => {
    const bins = reliability(at);
    expect(bins.length).toBeGreaterThanOrEqual(5);
    // within three standard errors of a bin's size (3,000 questions: a few hundred pairs a bin)
    for (const bin of bins) expect(Math.abs(bin.predicted - bin.won), JSON.stringify(bin)).toBeLessThan(3 * Math.sqrt((bin.predicted * (1 - bin.predicted)) / bin.pairs) + 0.01);
  });

  it('has upsets: some questions resolve to an outcome the market had below 50 % a day before', () => {
    const upsets = questions.filter((q) => canonicalProbabilities(key, q, q.endAt - DAY_MS)[q.winner!]! < 0.5);
    expect(questions.length).toBeGreaterThan(2000);
    expect(upsets.length / questions.length).toBeGreaterThan(0.05);
  });

  it('shows the winner a minute before the end, so final prices agree with the resolution', () => {
    const lowest = Math.min(...questions.map((q) => canonicalProbabilities(key, q, q.endAt - 60_000)[q.winner!]!));
    expect(lowest).toBeGreaterThan(0.85);
  });
});
