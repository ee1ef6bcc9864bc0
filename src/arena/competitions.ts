import { DAY_MS } from './windows.js';

/** Competition rules (contract §4.2 rule 6, supplement §2.14). */
export const COMPETITION_MIN_DECIDED_TRADES = 1;
export const COMPETITION_STATUSES = ['upcoming', 'active', 'ended'] as const;
export type CompetitionStatus = (typeof COMPETITION_STATUSES)[number];
export const COMPETITION_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,79}$';
/** The longest competition window. */
export const MAX_COMPETITION_DAYS = 366;

export function competitionStatus(nowMs: number, startsAtMs: number, endsAtMs: number): CompetitionStatus {
  if (nowMs < startsAtMs) return 'upcoming';
  return nowMs < endsAtMs ? 'active' : 'ended';
}

export interface WindowProblem {
  field: 'startsAt' | 'endsAt';
  message: string;
}

/**
 * Why a competition window cannot be set (null: it can): a board is daily figures over its
 * window, so the window is bounded, and it may not be over before anyone can enter.
 */
export function windowProblem(startsAtMs: number, endsAtMs: number, nowMs: number): WindowProblem | null {
  if (!Number.isFinite(startsAtMs)) return { field: 'startsAt', message: 'startsAt is not a date-time' };
  if (!Number.isFinite(endsAtMs) || endsAtMs <= startsAtMs) return { field: 'endsAt', message: 'endsAt must be a date-time after startsAt' };
  if (endsAtMs - startsAtMs > MAX_COMPETITION_DAYS * DAY_MS) return { field: 'endsAt', message: `endsAt must be at most ${MAX_COMPETITION_DAYS} days after startsAt` };
  if (endsAtMs <= nowMs) return { field: 'endsAt', message: 'endsAt must be in the future (entries close at the end)' };
  return null;
}

export interface EditRefusal {
  code: 'competition_ended' | 'competition_started';
  field: 'startsAt' | 'endsAt';
  message: string;
}

/**
 * Whether an edit may move a window (null: it may). Once a competition has ended its board is
 * final; once it has started, its start is what every entrant was measured from.
 */
export function windowEditRefusal(current: { startsAtMs: number; endsAtMs: number }, next: { startsAtMs: number; endsAtMs: number }, nowMs: number): EditRefusal | null {
  const startMoves = next.startsAtMs !== current.startsAtMs;
  const endMoves = next.endsAtMs !== current.endsAtMs;
  if (!startMoves && !endMoves) return null;
  if (nowMs >= current.endsAtMs) return { code: 'competition_ended', field: endMoves ? 'endsAt' : 'startsAt', message: 'an ended competition keeps its window (its board is final)' };
  if (startMoves && nowMs >= current.startsAtMs) return { code: 'competition_started', field: 'startsAt', message: 'a started competition keeps its start; endsAt may still move' };
  return null;
}

export interface BoardCandidate {
  handle: string;
  realizedPnl: number;
  decided: number;
}

/**
 * Entries with at least the gate's decided trades rank by realized PnL (desc; ties: decided
 * desc, handle asc); the others follow with `rank: null`.
 */
export function rankCompetition<T extends BoardCandidate>(rows: T[]): (T & { rank: number | null })[] {
  const gated = (r: T) => r.decided >= COMPETITION_MIN_DECIDED_TRADES;
  const sorted = [...rows].sort((a, b) => {
    if (gated(a) !== gated(b)) return gated(a) ? -1 : 1;
    if (a.realizedPnl !== b.realizedPnl) return b.realizedPnl - a.realizedPnl;
    if (a.decided !== b.decided) return b.decided - a.decided;
    return a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0;
  });
  let rank = 0;
  return sorted.map((r) => ({ ...r, rank: gated(r) ? ++rank : null }));
}
