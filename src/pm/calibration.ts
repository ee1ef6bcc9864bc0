/** Calibration series over resolved markets (supplement 2.20): pure functions of stored outcomes. */
export interface Pair {
  /** predicted probability 0..1 */
  p: number;
  /** 1 = this outcome won */
  y: 0 | 1;
}

export interface Bin {
  bucket: string;
  predictedMean: number | null;
  realizedRate: number | null;
  pairs: number;
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** 10 equal bins and the expected calibration error Σ (n_b / N)·|predicted_b − realized_b|. */
export function reliability(pairs: Pair[]): { bins: Bin[]; calibrationError: number | null } {
  const sums = Array.from({ length: 10 }, () => ({ p: 0, y: 0, n: 0 }));
  for (const { p, y } of pairs) {
    const b = Math.min(9, Math.max(0, Math.floor(p * 10)));
    sums[b]!.p += p;
    sums[b]!.y += y;
    sums[b]!.n += 1;
  }
  const N = pairs.length;
  let ece = 0;
  const bins = sums.map((s, i) => {
    if (s.n > 0) ece += (s.n / N) * Math.abs(s.p / s.n - s.y / s.n);
    return {
      bucket: `${i * 10}-${i * 10 + 10}`,
      predictedMean: s.n ? r4(s.p / s.n) : null,
      realizedRate: s.n ? r4(s.y / s.n) : null,
      pairs: s.n,
    };
  });
  return { bins, calibrationError: N ? r4(ece) : null };
}

export interface ResolvedSample {
  outcomeIds: string[];
  /** 0..100 per outcome, or null when no point exists at the lead time */
  probabilities: number[] | null;
  winner: string;
}

export interface SeriesStats {
  sampleSize: number;
  calibrationError: number | null;
  meanWinnerConfidence: number | null;
  excluded: { noLeadPoint: number; partialBookAtLead: number; winnerNotAnOutcome: number };
  reliability: Bin[];
}

/** One venue's series: every outcome of every complete book is a (probability, won) pair. */
export function seriesStats(samples: ResolvedSample[]): SeriesStats {
  const excluded = { noLeadPoint: 0, partialBookAtLead: 0, winnerNotAnOutcome: 0 };
  const pairs: Pair[] = [];
  let winnerConf = 0;
  let n = 0;
  for (const s of samples) {
    if (!s.probabilities) {
      excluded.noLeadPoint += 1;
      continue;
    }
    const w = s.outcomeIds.indexOf(s.winner);
    if (w < 0) {
      excluded.winnerNotAnOutcome += 1;
      continue;
    }
    const sum = s.probabilities.reduce((a, b) => a + b, 0);
    if (s.probabilities.length !== s.outcomeIds.length || sum < 80 || sum > 120) {
      excluded.partialBookAtLead += 1;
      continue;
    }
    n += 1;
    winnerConf += s.probabilities[w]! / 100;
    s.probabilities.forEach((p, i) => pairs.push({ p: p / 100, y: i === w ? 1 : 0 }));
  }
  const { bins, calibrationError } = reliability(pairs);
  // Empty bins are left out: the reference types predictedMean/realizedRate as non-null numbers.
  return { sampleSize: n, calibrationError, meanWinnerConfidence: n ? r4(winnerConf / n) : null, excluded, reliability: bins.filter((b) => b.pairs > 0) };
}

export function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}
