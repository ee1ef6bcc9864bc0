/**
 * Cross-venue consensus (`consensus_probability_v1`): one voice per venue, each venue's
 * probability oriented to the cluster's anchor question, combined by a weighted median
 * whose weights are liquidity capped at 3× the median liquidity of the voices.
 */
export const CONSENSUS_METHODOLOGY_VERSION = 'consensus_probability_v1';
export const CONSENSUS_METHODOLOGY_PATH = '/api/prediction-markets/consensus-methodology';
const CAP_MULTIPLE = 3;

const methodologyContent = {
  summary: 'Liquidity-capped weighted median across 2+ matched open venues, one voice per venue.',
  steps: [
    'Cluster: markets are matched into canonical events from question text and outcome names only, never from prices.',
    'Orientation: each member is same, flipped or unknown relative to the cluster anchor; flipped binaries contribute 100 − p; unknown members are excluded.',
    'Eligibility: open markets with a priced book; the most liquid market per venue is that venue\'s single voice.',
    `Weights: each voice weighs its liquidity, capped at ${CAP_MULTIPLE}× the median liquidity of the voices (one deep venue cannot dictate the result).`,
    'Combination: the weighted median of the oriented probabilities (0..100) for the leading outcome; multi-outcome events take the median per outcome name and report the leader.',
    'Publication: only when 2 or more venues contribute; spreadPoints is the range of the contributing probabilities.',
  ],
  minVenues: 2,
  weightCapMultipleOfMedian: CAP_MULTIPLE,
  scale: '0..100 probability points',
  changelog: [{ version: CONSENSUS_METHODOLOGY_VERSION, date: '2026-11-23', change: 'initial version' }],
};

/** Reference shape: `methodology` holds the method; the same keys stay at top level for existing clients. */
export const consensusMethodology = {
  schema: 'svc.consensusMethodology.v1',
  version: CONSENSUS_METHODOLOGY_VERSION,
  ...methodologyContent,
  methodology: methodologyContent,
  licence:
    'Service-computed data (not venue market data): citable with attribution to Paper Arena and a link back; redistribution beyond citation per plan.',
};

export interface Voice {
  source: string;
  liquidity: number;
  /** oriented to the anchor, 0..100 */
  probability: number;
}

/** One voice per venue (its most liquid market), then the capped weighted median. */
export function weightedMedian(voices: Voice[]): { probability: number; venueCount: number; spreadPoints: number } | null {
  const best = new Map<string, Voice>();
  for (const v of voices) {
    if (!Number.isFinite(v.probability)) continue;
    const cur = best.get(v.source);
    if (!cur || v.liquidity > cur.liquidity) best.set(v.source, v);
  }
  const list = [...best.values()];
  if (list.length < 2) return null;
  const liq = list.map((v) => Math.max(0, v.liquidity)).sort((a, b) => a - b);
  const mid = liq.length / 2;
  const median = liq.length % 2 ? liq[Math.floor(mid)]! : (liq[mid - 1]! + liq[mid]!) / 2;
  const cap = Math.max(1, median * CAP_MULTIPLE);
  const weighted = list.map((v) => ({ p: v.probability, w: Math.max(1e-9, Math.min(cap, v.liquidity)) })).sort((a, b) => a.p - b.p);
  const total = weighted.reduce((a, b) => a + b.w, 0);
  let acc = 0;
  let result = weighted[weighted.length - 1]!.p;
  for (let i = 0; i < weighted.length; i += 1) {
    acc += weighted[i]!.w;
    if (Math.abs(acc - total / 2) < 1e-9 && i + 1 < weighted.length) {
      result = (weighted[i]!.p + weighted[i + 1]!.p) / 2;
      break;
    }
    if (acc > total / 2) {
      result = weighted[i]!.p;
      break;
    }
  }
  return {
    probability: Math.round(result * 10) / 10,
    venueCount: list.length,
    spreadPoints: Math.round((weighted[weighted.length - 1]!.p - weighted[0]!.p) * 10) / 10,
  };
}
