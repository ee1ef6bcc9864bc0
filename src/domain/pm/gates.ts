/**
 * PM entry gates and settlement arithmetic (supplement 1.0 PmQuality, 3.5). Pure: the
 * caller hands over the venue market as read and the time.
 * Probabilities in points (0..100).
 */
import type { Freshness } from '../freshness.js';
import { Decimal } from '../money.js';
import type { PmSide } from './pricing.js';

export const PM_QUALITY_POLICY_VERSION = 'pm-quality-2';
/** An assessment older than this blocks opens as `quality_state_stale` [ours]. */
export const PM_QUALITY_MAX_AGE_MS = 2 * 3_600_000;
/** A leader at or above this is effectively decided (`pinned`) [ours]. */
export const PM_PINNED_THRESHOLD = 97;

export interface GateOutcome {
  externalMarketId: string;
  name: string;
  probability: number;
  bid: number | null;
  ask: number | null;
}

/** What the gates read of one venue market (a subset of `readVenueMarket`). */
export interface GateMarket {
  supportsTrading: boolean;
  kind: 'binary' | 'multi';
  status: 'open' | 'closed';
  /** the venue's scheduled end (ISO); past it the outcome may be known before the status catches up */
  endAt: string | null;
  outcomes: GateOutcome[];
  lastCaptureAt: string | null;
  /** when an ingest last stored the market (every pass, unlike captures); null when unknown */
  lastIngestAt: string | null;
  freshness: Freshness;
  resolution: { state: 'resolved' | 'voided'; winnerExternalMarketId: string | null } | null;
}

export interface PmQuality {
  decisionEligible: boolean;
  warningReasons: string[];
  blockReasons: string[];
  policyVersion: string;
  assessedAt: string | null;
}

const priced = (p: number) => p > 0 && p < 100;

/** The quality verdict on a market's latest capture; null when it was never captured (no assessment). */
export function pmQuality(m: GateMarket): PmQuality | null {
  if (m.lastCaptureAt === null) return null;
  const block: string[] = [];
  if (m.status !== 'open' || m.resolution) block.push('not_open');
  if (m.freshness.status === 'stale') block.push('stale_freshness');
  if (m.freshness.status === 'unknown') block.push('freshness_unknown');
  const usable = m.outcomes.filter((o) => priced(o.probability));
  if (m.outcomes.length === 0 || usable.length === 0) block.push('unpriced');
  else if (m.outcomes.some((o) => !priced(o.probability) && o.bid === null && o.ask === null)) block.push('dead_zero');
  const warn: string[] = [];
  if (m.freshness.status === 'lagging') warn.push('lagging_freshness');
  return { decisionEligible: block.length === 0, warningReasons: warn, blockReasons: block, policyVersion: PM_QUALITY_POLICY_VERSION, assessedAt: m.lastCaptureAt };
}

/**
 * Open for entries at `nowMs`: listed open and not past its end time. The stored status moves
 * only with an ingest (seconds to a minute later), while the price that decides a question
 * ending now can already be read: an entry after the end would bet on a known outcome.
 */
export function isOpenAt(m: Pick<GateMarket, 'status' | 'endAt'>, nowMs: number): boolean {
  return m.status === 'open' && (m.endAt === null || Date.parse(m.endAt) > nowMs);
}

/** Near its end a market's data must be younger than this share of the time left [ours]… */
export const PM_NEAR_END_MAX_AGE_SHARE = 0.1;
/** …and never needs to be younger than this (an ingest runs every 5 s to a minute). */
export const PM_NEAR_END_MIN_AGE_MS = 2 * 60_000;

/**
 * The market's last ingest is too old for the time it has left: the price that decides a
 * question ending soon has moved on since (with no ingest running, a flash market's frozen
 * quote paid ~2× on the side the coin's price already showed).
 */
export function staleNearEnd(m: Pick<GateMarket, 'endAt' | 'lastIngestAt'>, nowMs: number): boolean {
  if (m.endAt === null || m.lastIngestAt === null) return false;
  const age = nowMs - Date.parse(m.lastIngestAt);
  return age > Math.max(PM_NEAR_END_MIN_AGE_MS, (Date.parse(m.endAt) - nowMs) * PM_NEAR_END_MAX_AGE_SHARE);
}

/** Shape codes (supplement 3.5 [ours]): can this outcome be entered at all, whatever the stake. */
export function shapeBlockReasons(m: GateMarket, outcome: GateOutcome | null, nowMs: number): string[] {
  const out: string[] = [];
  if (!m.supportsTrading) out.push('venue_not_tradeable');
  if (m.kind !== 'binary') out.push('not_binary');
  if (m.resolution) out.push('event_settled');
  else if (!isOpenAt(m, nowMs)) out.push('event_not_open');
  else if (staleNearEnd(m, nowMs)) out.push('price_stale_near_end');
  if (outcome && !priced(outcome.probability)) out.push('outcome_unpriced');
  return out;
}

/** The quality gate an open must pass (quotes preview it as `openBlocked`). */
export function qualityGateReasons(quality: PmQuality | null, nowMs: number): string[] {
  if (!quality || quality.assessedAt === null) return ['quality_state_missing'];
  if (nowMs - Date.parse(quality.assessedAt) > PM_QUALITY_MAX_AGE_MS) return ['quality_state_stale'];
  return quality.decisionEligible ? [] : [...quality.blockReasons];
}

/** Floor on the chosen-side mid (before costs). */
export function floorBlockReasons(entryProbability: number | null, floor: number | undefined): string[] {
  if (floor === undefined) return [];
  if (entryProbability === null || !priced(entryProbability)) return ['entry_price_unavailable'];
  return entryProbability < floor ? ['entry_below_floor'] : [];
}

export function isPinned(m: GateMarket): boolean {
  return m.outcomes.some((o) => o.probability >= PM_PINNED_THRESHOLD);
}

export type PmSettlementStatus = 'won' | 'lost' | 'void_refunded';

/**
 * Outcome of a position when its market resolves: the backed outcome winning pays the YES
 * side, any other winner pays the NO side; a void (no winner) refunds the stake.
 */
export function settlePosition(side: PmSide, outcomeId: string, winnerId: string | null, stake: Decimal, shares: Decimal): { status: PmSettlementStatus; payout: Decimal; pnl: Decimal } {
  if (winnerId === null) return { status: 'void_refunded', payout: stake, pnl: new Decimal(0) };
  const yesWins = winnerId === outcomeId;
  const won = side === 'yes' ? yesWins : !yesWins;
  const payout = won ? shares : new Decimal(0);
  return { status: won ? 'won' : 'lost', payout, pnl: payout.minus(stake) };
}
