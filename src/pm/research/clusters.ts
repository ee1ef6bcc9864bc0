/**
 * Public cross-venue match clusters (reference A2): each canonical event listed by two or more
 * venues, with one comparison per matched pair (the cluster anchor against each member).
 * Orientation comes from the matcher's review, never from prices.
 */
import type { PmMarketRow } from '../../storage/pm-repo.js';
import { keyOf, relativeOrientation, type PmSnapshot } from '../read-model.js';
import type { OutcomeQuote } from '../types.js';
import { isMoneyVenue } from '../venues.js';
import type { Money } from '../views.js';
import { eventIn } from './events.js';

export const CLUSTER_SORTS = ['confidence_desc', 'divergence_desc', 'max_outcome_delta_desc'] as const;

export interface ClusterQuery {
  sort: (typeof CLUSTER_SORTS)[number];
  minDivergence: number;
  sourceKind: 'market' | null;
  status: 'open' | null;
  maxSnapshotAgeMinutes: number | null;
  requirePriced: boolean;
}

interface OutcomeComparison {
  outcome: string;
  eventAProbability: number;
  eventBProbability: number;
  deltaPoints: number;
}

const round1 = (v: number) => Math.round(v * 10) / 10;
const normName = (n: string) => n.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

/** Per shared outcome, both venues' chances oriented to `a`; empty when orientation is unknown. */
function compareOutcomes(a: PmMarketRow, b: PmMarketRow): OutcomeComparison[] {
  const orientation = relativeOrientation(a.orientation, b.orientation);
  const oa = a.outcomes as OutcomeQuote[];
  const ob = b.outcomes as OutcomeQuote[];
  const row = (outcome: string, pa: number, pb: number) => ({ outcome, eventAProbability: pa, eventBProbability: round1(pb), deltaPoints: round1(Math.abs(pa - pb)) });
  if (a.kind === 'binary' && b.kind === 'binary' && orientation !== 'unknown') {
    const yesB = orientation === 'flipped' ? 100 - ob[0]!.probability : ob[0]!.probability;
    return [row(oa[0]!.name, oa[0]!.probability, yesB)];
  }
  if (orientation !== 'same') return [];
  return oa.flatMap((x) => {
    const match = ob.find((y) => normName(y.name) === normName(x.name));
    return match ? [row(x.name, x.probability, match.probability)] : [];
  });
}

const priced = (r: PmMarketRow) => (r.outcomes as OutcomeQuote[]).some((o) => o.probability > 0 && (o.bid !== null || o.ask !== null));
const ageMinutes = (r: PmMarketRow, nowMs: number) => (nowMs - (r.lastCaptureAt ?? r.updatedAt).getTime()) / 60_000;

function pairAllowed(a: PmMarketRow, b: PmMarketRow, q: ClusterQuery, nowMs: number): boolean {
  if (q.sourceKind === 'market' && !(isMoneyVenue(a.source) && isMoneyVenue(b.source))) return false;
  if (q.status === 'open' && !(a.status === 'open' && b.status === 'open')) return false;
  if (q.maxSnapshotAgeMinutes !== null && (ageMinutes(a, nowMs) > q.maxSnapshotAgeMinutes || ageMinutes(b, nowMs) > q.maxSnapshotAgeMinutes)) return false;
  if (q.requirePriced && !(priced(a) && priced(b))) return false;
  return true;
}

/** The anchor (the matcher's `anchor` member, else the most liquid) comes first. */
function anchorFirst(members: PmMarketRow[]): PmMarketRow[] {
  return [...members].sort(
    (a, b) => Number(b.matchBasis === 'anchor') - Number(a.matchBasis === 'anchor') || b.liquidity - a.liquidity || keyOf(a).localeCompare(keyOf(b)),
  );
}

export function publicClusters(snap: PmSnapshot, nowMs: number, fx: Money, q: ClusterQuery): Record<string, unknown>[] {
  const out: (Record<string, unknown> & { maxConfidence: number; maxOverallGap: number | null; maxOutcomeGap: number | null })[] = [];
  for (const [clusterId, members] of snap.clusters) {
    if (members.length < 2) continue;
    const [anchor, ...others] = anchorFirst(members);
    const comparisons = others
      .filter((m) => pairAllowed(anchor!, m, q, nowMs))
      .map((m) => {
        const comparison = compareOutcomes(anchor!, m);
        const divergence = comparison.length > 0 ? comparison[0]!.deltaPoints : null;
        return {
          matchId: `${keyOf(anchor!)}~${keyOf(m)}`,
          eventAId: eventIn(snap, anchor!, nowMs, fx).id,
          eventBId: eventIn(snap, m, nowMs, fx).id,
          confidence: m.matchConfidence ?? 0,
          matchMethod: m.matchBasis ?? 'unknown',
          orientation: relativeOrientation(anchor!.orientation, m.orientation),
          divergence,
          maxOutcomeDelta: comparison.length > 0 ? Math.max(...comparison.map((c) => c.deltaPoints)) : null,
          comparison,
        };
      })
      .filter((c) => q.minDivergence <= 0 || (c.divergence !== null && c.divergence >= q.minDivergence));
    if (comparisons.length === 0) continue;
    const kept = new Set(comparisons.flatMap((c) => [c.eventAId, c.eventBId]));
    const events = [anchor!, ...others].map((m) => eventIn(snap, m, nowMs, fx)).filter((e) => kept.has(e.id));
    out.push({
      clusterId,
      primaryEventId: eventIn(snap, anchor!, nowMs, fx).id,
      title: anchor!.title,
      events,
      comparisons,
      // null when no pair could be compared (orientation unknown): not the same as venues agreeing.
      maxOverallGap: maxOrNull(comparisons.map((c) => c.divergence)),
      maxOutcomeGap: maxOrNull(comparisons.map((c) => c.maxOutcomeDelta)),
      maxConfidence: Math.max(...comparisons.map((c) => c.confidence)),
      referenceProbability: snap.refs.get(keyOf(anchor!)) ?? null,
    });
  }
  const by = { confidence_desc: 'maxConfidence', divergence_desc: 'maxOverallGap', max_outcome_delta_desc: 'maxOutcomeGap' } as const;
  const field = by[q.sort];
  // Gaps that could not be measured sort last.
  return out.sort((a, b) => (b[field] ?? -1) - (a[field] ?? -1) || String(a.clusterId).localeCompare(String(b.clusterId)));
}

function maxOrNull(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length > 0 ? Math.max(...known) : null;
}
