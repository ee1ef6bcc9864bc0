/** Surprising resolutions (reference A3) and events about to end (reference A4). */
import type { PmMarketRow } from '../../storage/pm-repo.js';
import type { PmSnapshot } from '../read-model.js';
import type { OutcomeQuote } from '../types.js';
import { iso, resolutionOutcomeOf, type Money } from '../views.js';
import { eventIn } from './events.js';

export const SURPRISE_WINDOWS: Record<string, number | null> = { '7d': 7, '30d': 30, '90d': 90, all: null };
const DAY_MS = 86_400_000;
/** Activity floor for `expiring`, in the venue's raw (USD) units. */
const EXPIRING_MIN_VOLUME24H = 1_000;
const EXPIRING_MIN_VOLUME = 10_000;

/** An unknown window is served as `all`, never refused (reference A3). */
export const surpriseWindowOf = (raw: string | undefined): string => (raw !== undefined && Object.hasOwn(SURPRISE_WINDOWS, raw) ? raw : 'all');

/** The winner's chance about a day before resolution, when the venue history has it. */
function winnerLead(r: PmMarketRow): number | null {
  const o = r.outcomes as OutcomeQuote[];
  const i = o.findIndex((x) => x.externalMarketId === r.winnerExternalId);
  const lead = r.leadProbabilities as number[] | null;
  return i >= 0 && lead && typeof lead[i] === 'number' ? lead[i]! : null;
}

/**
 * Binary events settled on the venue's own winner marker whose winner was priced under 50 a day
 * before; the least expected first.
 */
export function surprises(snap: PmSnapshot, nowMs: number, fx: Money, source: string | null, window: string): Record<string, unknown>[] {
  const days = SURPRISE_WINDOWS[window] ?? null;
  const since = days === null ? -Infinity : nowMs - days * DAY_MS;
  return snap.rows
    .filter((r) => r.kind === 'binary' && r.resolutionState === 'resolved' && r.resolutionBasis !== 'final_probability' && (!source || r.source === source))
    .map((r) => ({ r, t24: winnerLead(r), at: (r.resolvedAt ?? r.closedAt)?.getTime() ?? null }))
    .filter((x): x is { r: PmMarketRow; t24: number; at: number } => x.t24 !== null && x.t24 < 50 && x.at !== null && x.at >= since)
    .sort((a, b) => a.t24 - b.t24 || b.at - a.at || `${a.r.source}/${a.r.slug}`.localeCompare(`${b.r.source}/${b.r.slug}`))
    .map(({ r, t24 }) => ({
      event: eventIn(snap, r, nowMs, fx),
      resolvedAt: r.resolvedAtVerified ? iso(r.resolvedAt) : null,
      resolvedAtVerified: r.resolvedAtVerified,
      closedAt: iso(r.closedAt),
      resolutionOutcome: resolutionOutcomeOf(r)!,
      // Only the 24 h lead is kept per market; a 7-day lead is unknown, never guessed.
      surprise: { t24hProbability: t24, t7dProbability: null },
    }));
}

/** Open events ending within `days`, with enough activity, soonest first. */
export function expiring(snap: PmSnapshot, nowMs: number, fx: Money, source: string | null, days: number): Record<string, unknown>[] {
  const to = nowMs + days * DAY_MS;
  return snap.rows
    .filter((r) => r.status === 'open' && r.endAt !== null && r.endAt.getTime() >= nowMs && r.endAt.getTime() <= to && (!source || r.source === source))
    .filter((r) => r.volume24h >= EXPIRING_MIN_VOLUME24H || r.volume >= EXPIRING_MIN_VOLUME)
    .sort((a, b) => a.endAt!.getTime() - b.endAt!.getTime() || `${a.source}/${a.slug}`.localeCompare(`${b.source}/${b.slug}`))
    .map((r) => ({ ...eventIn(snap, r, nowMs, fx), expiresInMs: r.endAt!.getTime() - nowMs }));
}
