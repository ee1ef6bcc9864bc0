/**
 * Prediction-market reads for the pages, over the same per-process snapshot the
 * /api/prediction-markets routes read (pmReadModel), with the same view builders.
 */
import { seriesStats, type SeriesStats } from '../pm/calibration.js';
import { crossSourceMatches, keyOf, pmReadModel, type PmSnapshot } from '../pm/read-model.js';
import { leaderIndex, type SparkEntry } from '../pm/spark.js';
import type { OutcomeQuote } from '../pm/types.js';
import { whaleItem } from '../pm/views.js';
import { VENUES, venueById } from '../pm/venues.js';
import type { Database } from '../storage/db.js';
import { capturePoints, recentWhales, type PmMarketRow } from '../storage/pm-repo.js';
import type { Clock } from '../util/clock.js';

export const MARKET_SORTS = {
  best: 'Best',
  volume24h_desc: '24 h volume',
  priceChange24h_desc: 'Biggest rise',
  priceChange24h_asc: 'Biggest fall',
  endDate_desc: 'Ends latest',
} as const;
export type MarketSort = keyof typeof MARKET_SORTS;
export const MARKETS_PAGE_SIZE = 25;
const HISTORY_SPAN_MS = 7 * 86_400_000;
const MAX_CHART_POINTS = 400;

export interface MarketQuery {
  q: string;
  source: string | null;
  status: 'open' | 'closed' | null;
  sort: MarketSort;
  page: number;
}

const quality = (snap: PmSnapshot, r: PmMarketRow) =>
  ((snap.events.get(keyOf(r))?.decisionSupport as { qualityScore?: number } | null)?.qualityScore ?? 0);
const nullsLast = (a: number | null, b: number | null, dir: 1 | -1) => (a === null && b === null ? 0 : a === null ? 1 : b === null ? -1 : dir * (a - b));

function compare(sort: MarketSort, snap: PmSnapshot): (a: PmMarketRow, b: PmMarketRow) => number {
  const tie = (a: PmMarketRow, b: PmMarketRow) => b.volume24h - a.volume24h || keyOf(a).localeCompare(keyOf(b));
  switch (sort) {
    case 'volume24h_desc':
      return tie;
    case 'priceChange24h_desc':
      return (a, b) => nullsLast(a.priceChange24h, b.priceChange24h, -1) || tie(a, b);
    case 'priceChange24h_asc':
      return (a, b) => nullsLast(a.priceChange24h, b.priceChange24h, 1) || tie(a, b);
    case 'endDate_desc':
      return (a, b) => nullsLast(a.endAt?.getTime() ?? null, b.endAt?.getTime() ?? null, -1) || tie(a, b);
    default:
      return (a, b) => Number(b.status === 'open') - Number(a.status === 'open') || quality(snap, b) - quality(snap, a) || tie(a, b);
  }
}

/** One page of the explorer: filtered by words (title, category, topics, outcomes), venue and status. */
export async function marketsPage(database: Database, clock: Clock, query: MarketQuery) {
  const snap = await pmReadModel(database, clock).snapshot();
  const words = query.q.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 6);
  const rows = snap.rows.filter((r) => {
    if (query.source && r.source !== query.source) return false;
    if (query.status && r.status !== query.status) return false;
    if (words.length === 0) return true;
    const hay = [r.title, r.category, ...(r.topics as string[]), ...(r.outcomes as OutcomeQuote[]).map((o) => o.name)].join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  rows.sort(compare(query.sort, snap));
  const from = (query.page - 1) * MARKETS_PAGE_SIZE;
  return {
    total: rows.length,
    rows: rows.slice(from, from + MARKETS_PAGE_SIZE).map((r) => ({ row: r, event: snap.events.get(keyOf(r))!, venues: r.canonicalKey ? (snap.clusters.get(r.canonicalKey)?.length ?? 1) : 1 })),
    hasMore: from + MARKETS_PAGE_SIZE < rows.length,
  };
}

/** Markets that moved most in 24 h (the home page's starting list before the stream speaks). */
export async function topMoves(database: Database, clock: Clock, limit: number) {
  const snap = await pmReadModel(database, clock).snapshot();
  return snap.rows
    .filter((r) => r.status === 'open' && r.priceChange24h !== null)
    .sort((a, b) => Math.abs(b.priceChange24h!) - Math.abs(a.priceChange24h!) || keyOf(a).localeCompare(keyOf(b)))
    .slice(0, limit)
    .map((r) => ({ source: r.source, slug: r.slug, title: r.title, priceChange24h: r.priceChange24h, volume24h: r.volume24h }));
}

/** Leading-outcome history: our captures where the venue has native history, else the stored sparkline. */
async function history(database: Database, row: PmMarketRow, nowMs: number): Promise<{ basis: string; points: [number, number][] }> {
  const outcomes = row.outcomes as OutcomeQuote[];
  const li = leaderIndex(row, outcomes.map((o) => o.probability));
  if (venueById(row.source)?.nativeHistory) {
    const all = await capturePoints(database.db, row.source, row.slug, nowMs - HISTORY_SPAN_MS, nowMs, li);
    const step = Math.ceil(all.length / MAX_CHART_POINTS);
    const points = (step > 1 ? all.filter((_, i) => i % step === 0 || i === all.length - 1) : all).map((p): [number, number] => [p.t / 1000, p.p]);
    if (points.length >= 2) return { basis: 'captures', points };
  }
  const spark = row.spark as SparkEntry[];
  return { basis: 'sparkline', points: spark.map((e): [number, number] => [e[0]! / 1000, Math.round(e[li + 1]! * 10) / 10]) };
}

/** Everything the event page shows; null when the venue or market is unknown. */
export async function eventPage(database: Database, clock: Clock, source: string, slug: string) {
  if (!venueById(source)) return null;
  const snap = await pmReadModel(database, clock).snapshot();
  const row = snap.byKey.get(`${source}/${slug}`);
  if (!row) return null;
  const now = clock.now();
  const members = row.canonicalKey ? (snap.clusters.get(row.canonicalKey) ?? []) : [];
  const outcomes = row.outcomes as OutcomeQuote[];
  const winner = outcomes.find((o) => o.externalMarketId === row.winnerExternalId) ?? null;
  return {
    row,
    event: snap.events.get(keyOf(row))!,
    outcomes,
    leader: outcomes[leaderIndex(row, outcomes.map((o) => o.probability))] ?? null,
    reference: row.status === 'open' ? (snap.refs.get(keyOf(row)) ?? null) : null,
    cross: crossSourceMatches(row, members),
    whales: (await recentWhales(database.db, 10, { source, slug })).map((w) => whaleItem(w, now)),
    history: await history(database, row, now),
    resolution: {
      state: row.resolutionState === 'voided' ? 'voided' : row.resolutionState ? 'resolved' : row.status === 'open' ? 'open' : 'awaiting',
      winner: winner?.name ?? null,
      resolvedAt: row.resolvedAt?.toISOString() ?? null,
      verified: row.resolvedAtVerified,
      rules: row.rules,
      settlementSource: row.settlementSource,
    },
  };
}

type CalibrationSeries = { source: string; name: string; stats: SeriesStats }[];
/** Computed once per snapshot: the resolved set only changes when the snapshot does. */
const calibrationBySnapshot = new WeakMap<PmSnapshot, CalibrationSeries>();

/** Per venue: the 24 h-lead reliability series (the `scored` series of the calibration route). */
export async function calibrationPage(database: Database, clock: Clock): Promise<CalibrationSeries> {
  const snap = await pmReadModel(database, clock).snapshot();
  const known = calibrationBySnapshot.get(snap);
  if (known) return known;
  const resolved = snap.rows.filter((r) => r.resolutionState === 'resolved' && r.winnerExternalId);
  const series = VENUES.map((v) => ({
    source: v.id,
    name: v.name,
    stats: seriesStats(
      resolved
        .filter((r) => r.source === v.id)
        .map((r) => ({
          outcomeIds: (r.outcomes as OutcomeQuote[]).map((o) => o.externalMarketId),
          probabilities: (r.leadProbabilities as number[] | null) ?? null,
          winner: r.winnerExternalId!,
        })),
    ),
  }));
  calibrationBySnapshot.set(snap, series);
  return series;
}
