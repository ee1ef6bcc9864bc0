import { describe, expect, it } from 'vitest';
import { seedKey } from '../../../src/marketdata/sim/random.js';
import { canonicalProbabilities } from '../../../src/pm/sim/path.js';
import { DAY_MS, regularQuestion } from '../../../src/pm/sim/questions.js';

/** The simulated prediction markets' outcomes against their prices (src/pm/sim/path.ts). */
const seed = 'sim-outcomes';
const key = seedKey(seed);
// decided, not about a coin price (those follow the simulated price path)
const questions = Array.from({ length: 3000 }, (_, j) => regularQuestion(seed, j)).filter((q) => q.winner !== null && !q.threshold && !q.pending);

describe('simulated prediction markets: outcomes against prices', () => {
  it('has upsets: about one question in ten resolves to an outcome the market had below 50 % a day before', () => {
    const upsets = questions.filter((q) => canonicalProbabilities(key, q, q.endAt - DAY_MS)[q.winner!]! < 0.5);
    expect(questions.length).toBeGreaterThan(2000);
    expect(upsets.length / questions.length).toBeGreaterThan(0.06);
  });

  it('lets outcomes priced at 20–50 % a day before the end win a fair share of the time', () => {
    let priced = 0;
    let won = 0;
    for (const q of questions) {
      canonicalProbabilities(key, q, q.endAt - DAY_MS).forEach((p, i) => {
        if (p < 0.2 || p >= 0.5) return;
        priced += 1;
        if (i === q.winner) won += 1;
      });
    }
    expect(priced).toBeGreaterThan(500);
    expect(won / priced).toBeGreaterThan(0.15);
  });

  it('still shows the winner a minute before the end, so final prices agree with the resolution', () => {
    const lowest = Math.min(...questions.map((q) => canonicalProbabilities(key, q, q.endAt - 60_000)[q.winner!]!));
    expect(lowest).toBeGreaterThan(0.85);
  });
});
