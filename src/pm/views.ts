/** Wire shapes of the public prediction-market data (contract 2.12, supplement 2.15–2.22). */
import { pmFreshness } from '../domain/freshness.js';
import type { PmMarketRow } from '../storage/pm-repo.js';
import { CONSENSUS_METHODOLOGY_PATH, CONSENSUS_METHODOLOGY_VERSION } from './consensus.js';
import { decisionSupport } from './decision-support.js';
import { changeOver, leaderIndex, seriesAt, type SparkEntry } from './spark.js';
import { DAY_MS } from './sim/questions.js';
import type { OutcomeQuote } from './types.js';
import { sourceRef, venueById } from './venues.js';

export interface ReferenceProbability {
  kind: 'binary' | 'leader';
  outcomeName: string | null;
  probability: number;
  venueCount: number;
  spreadPoints: number;
  computedAt: string;
  methodologyVersion: string;
  methodologyUrl: string;
}

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
export const attributionOf = (source: string) => `Data from ${venueById(source)?.name ?? source}; compiled by Paper Arena (attribute and link back)`;

export function outcomesOf(row: PmMarketRow): OutcomeQuote[] {
  return row.outcomes as OutcomeQuote[];
}

export function spreadOf(row: PmMarketRow): { bestBid: number | null; bestAsk: number | null; spread: number | null } {
  const o = outcomesOf(row);
  const lead = o[leaderIndex(row, o.map((x) => x.probability))];
  if (!lead || lead.bid === null || lead.ask === null || row.status !== 'open') return { bestBid: null, bestAsk: null, spread: null };
  return { bestBid: lead.bid, bestAsk: lead.ask, spread: Math.round((lead.ask - lead.bid) * 10) / 10 };
}

export interface Money {
  rate: number;
}
const m = (v: number, fx: Money) => Math.round(v * fx.rate * 100) / 100;
const USD: Money = { rate: 1 };

/** The event object of one venue market. */
/** `detail` adds per-outcome lifecycle objects (kept out of lists to keep them small). */
export function eventObject(row: PmMarketRow, nowMs: number, fx: Money, ref: ReferenceProbability | null, crossPlatform: unknown[] = [], detail = false): Record<string, unknown> {
  const outcomes = outcomesOf(row);
  const probs = outcomes.map((o) => o.probability);
  const li = leaderIndex(row, probs);
  const sum = probs.reduce((a, b) => a + b, 0);
  const complete = row.status === 'open' && outcomes.every((o) => o.probability > 0) && sum > 0;
  const spark = row.spark as SparkEntry[];
  // Outcome changes read like the event's (ingest): from the prices of the last ingest, not the last spark point.
  const seenAtMs = row.updatedAt.getTime();
  const series = seriesAt(spark, probs, seenAtMs);
  const { bestBid, bestAsk, spread } = spreadOf(row);
  const open = row.status === 'open';
  const winner = row.winnerExternalId;
  const outcomeObjects = outcomes.map((o, i) => ({
    externalMarketId: o.externalMarketId,
    name: o.name,
    probability: o.probability,
    normalizedProbability: complete ? Math.round((o.probability / sum) * 1000) / 10 : null,
    hasObservedPrice: true,
    ...priceProvenance(row, o, open),
    priceChange24h: open ? changeOver(series, i, seenAtMs, DAY_MS) : null,
    lifecycle: lifecycleOf(row, o, open, winner),
  }));
  const event: Record<string, unknown> = {
    id: `${row.source}:${row.marketId}`,
    slug: row.slug,
    title: row.title,
    status: row.status,
    source: sourceRef(row.source),
    category: row.category,
    description: row.description,
    volume24h: m(row.volume24h, fx),
    volume: m(row.volume, fx),
    liquidity: m(row.liquidity, fx),
    // Lists stay small: per-outcome lifecycle rides on the detail (and on representativeOutcome).
    outcomes: detail ? outcomeObjects : outcomeObjects.map(({ lifecycle: _lifecycle, ...rest }) => rest),
    priceChange24h: open ? row.priceChange24h : null,
    priceChange7d: open ? row.priceChange7d : null,
    startDate: iso(row.startAt),
    endDate: iso(row.endAt),
    resolvedAt: row.resolvedAtVerified ? iso(row.resolvedAt) : null,
    resolvedOutcomeExternalMarketId: winner,
    resolutionOutcomeBasis: row.resolutionState === 'resolved' ? (row.resolutionBasis ?? 'source') : null,
    freshness: pmFreshness(row.lastCaptureAt?.getTime() ?? row.updatedAt.getTime(), nowMs),
    bestBid,
    bestAsk,
    spread,
    probabilityBook: complete ? { basis: 'raw_quotes', rawSum: Math.round(sum * 10) / 10, overroundPoints: Math.round((sum - 100) * 10) / 10 } : null,
    decisionSupport: open
      ? decisionSupport({ spreadPoints: spread, liquidity: row.liquidity, volume24h: row.volume24h, leaderProbability: probs[li] ?? null, endAtMs: row.endAt?.getTime() ?? null, nowMs })
      : null,
    relatedCoins: row.coinIds as string[],
    topics: row.topics as string[],
    canonicalEventId: row.canonicalKey,
    attribution: attributionOf(row.source),
  };
  // Lists stay small: the cross-venue pointers ride on the detail (and /canonical/{id}).
  if (detail) event.crossPlatform = crossPlatform;
  // Reference: the complete outcome object (with lifecycle), open events only — absent otherwise.
  if (open) event.representativeOutcome = outcomeObjects[representativeIndex(probs)]!;
  if (open && spark.length >= 2) {
    event.sparkline = {
      series: spark.map((e) => Math.round(e[li + 1]! * 10) / 1000),
      leaderOutcomeId: outcomes[li]!.externalMarketId,
      capturedAt: new Date(spark[spark.length - 1]![0]!).toISOString(),
    };
  }
  if (open && ref) event.referenceProbability = ref;
  return event;
}

/**
 * Reference rule `informative_leader`: the highest outcome strictly inside 5..95 points,
 * else the highest (so a near-certain leg does not stand for the whole event).
 */
export function representativeIndex(probs: number[]): number {
  const pick = (ok: (p: number) => boolean) => probs.reduce((best, p, i) => (ok(p) && (best < 0 || p > probs[best]!) ? i : best), -1);
  const inside = pick((p) => p > 5 && p < 95);
  return inside >= 0 ? inside : Math.max(0, pick(() => true));
}

/** Venues whose quotes are provider observations (reference `sourceObservation.provider`). */
const OBSERVATION_PROVIDERS = new Set(['rothera', 'forecastex']);
/** Venues whose open outcomes carry the reference `priceBasis` (book mid or last trade). */
const PRICE_BASIS_VENUES = new Set(['polymarket', 'kalshi']);

/**
 * Reference split (part C 9): `priceBasis` is only `unquoted`/`book_mid`/`last_trade` on
 * polymarket/kalshi open outcomes; quote-vs-untimed provenance goes to `sourceObservation`
 * on provider venues; null elsewhere.
 */
function priceProvenance(row: PmMarketRow, o: OutcomeQuote, open: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (open && PRICE_BASIS_VENUES.has(row.source)) out.priceBasis = o.bid !== null ? 'book_mid' : 'last_trade';
  out.sourceObservation = OBSERVATION_PROVIDERS.has(row.source)
    ? { version: 1, basis: o.bid !== null ? 'provider_quote' : 'last_price_untimed', provider: row.source, observedAt: iso(row.lastCaptureAt ?? row.updatedAt), tradeDate: null }
    : null;
  return out;
}

export function whaleItem(w: {
  id: string;
  source: string;
  slug: string;
  title: string;
  wallet: string | null;
  traderName: string | null;
  side: string;
  outcome: string;
  usdValue: number;
  price: number;
  tradedAt: Date;
  observedAt: Date;
  evidenceType: string;
  evidenceRef: string | null;
  evidenceUrl: string | null;
}, nowMs: number): Record<string, unknown> {
  const latency = Math.max(0, Math.round((w.observedAt.getTime() - w.tradedAt.getTime()) / 1000));
  return {
    wallet: w.wallet,
    traderName: w.traderName,
    side: w.side,
    outcome: w.outcome,
    marketQuestion: w.title,
    usdValue: m(w.usdValue, USD),
    price: w.price,
    tradedAt: w.tradedAt.toISOString(),
    event: { source: w.source, slug: w.slug, title: w.title },
    source: w.source,
    sourceName: venueById(w.source)?.name ?? w.source,
    eventSlug: w.slug,
    eventTitle: w.title,
    evidenceType: w.evidenceType,
    evidenceRef: w.evidenceRef,
    evidenceUrl: w.evidenceUrl,
    availability: nowMs - w.observedAt.getTime() < 3_600_000 ? 'live' : 'delayed',
    observedAt: w.observedAt.toISOString(),
    latencySeconds: latency,
    attribution: attributionOf(w.source),
  };
}

/** The winning outcome of a resolved market (reference S5); null while unresolved or voided. */
export function resolutionOutcomeOf(row: PmMarketRow): { externalMarketId: string; name: string; probability: number; basis: 'source' | 'final_probability' } | null {
  const winner = outcomesOf(row).find((x) => x.externalMarketId === row.winnerExternalId);
  if (!winner) return null;
  return { externalMarketId: winner.externalMarketId, name: winner.name, probability: winner.probability, basis: row.resolutionBasis === 'final_probability' ? 'final_probability' : 'source' };
}

/**
 * Reference `coverage` (required) and `stats24h` of the whale tape, [ours] keys: one
 * coverage item per money venue, read from the served tape itself.
 */
export function whaleTapeSummary(trades: Record<string, unknown>[], venues: { id: string; name: string }[], nowMs: number): { coverage: Record<string, unknown>[]; stats24h: Record<string, unknown> } {
  const coverage = venues.map((v) => {
    const mine = trades.filter((t) => t.source === v.id);
    const latest = mine[0];
    return {
      source: v.id,
      name: v.name,
      availability: latest ? (latest.availability as string) : 'unavailable',
      evidenceType: latest ? (latest.evidenceType as string) : null,
      tradeCount: mine.length,
      lastObservedAt: latest ? (latest.observedAt as string) : null,
    };
  });
  const day = trades.filter((t) => Date.parse(t.tradedAt as string) >= nowMs - 86_400_000);
  const usd = day.map((t) => t.usdValue as number);
  return {
    coverage,
    stats24h: {
      tradeCount: day.length,
      totalUsd: Math.round(usd.reduce((a, b) => a + b, 0) * 100) / 100,
      largestUsd: usd.length ? Math.max(...usd) : null,
      venueCount: new Set(day.map((t) => t.source)).size,
      basis: 'served_tape',
    },
  };
}

export const referenceOf = (probability: number, venueCount: number, spreadPoints: number, outcomeName: string | null, kind: 'binary' | 'leader', nowMs: number): ReferenceProbability => ({
  kind,
  outcomeName,
  probability,
  venueCount,
  spreadPoints,
  computedAt: new Date(nowMs).toISOString(),
  methodologyVersion: CONSENSUS_METHODOLOGY_VERSION,
  methodologyUrl: CONSENSUS_METHODOLOGY_PATH,
});

function lifecycleOf(row: PmMarketRow, o: OutcomeQuote, open: boolean, winner: string | null): Record<string, unknown> {
  return {
    state: row.resolutionState === 'voided' ? 'voided' : row.resolutionState ? 'resolved' : open ? 'open' : 'closed',
    providerAcceptingOrders: open,
    entryBlockedByLifecycle: !open,
    // every outcome of a settled event is a result (won, lost or voided), not a quote (reference S4)
    isResult: row.resolutionState !== null,
    result: row.resolutionState === 'voided' ? 'voided' : row.resolutionState ? (winner === o.externalMarketId ? 'won' : 'lost') : null,
    // the venue's own winner marker, or the winner we stored from a final probability (no marker)
    basis: !row.resolutionState ? 'unknown' : row.resolutionBasis === 'final_probability' ? 'stored_winner' : 'provider',
    closedAt: iso(row.closedAt),
    resolvedAt: row.resolvedAtVerified ? iso(row.resolvedAt) : null,
    observedAt: iso(row.lastCaptureAt ?? row.updatedAt),
  };
}
