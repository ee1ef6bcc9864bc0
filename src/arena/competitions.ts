/** Competition rules (contract §4.2 rule 6, supplement §2.14). */
export const COMPETITION_MIN_DECIDED_TRADES = 1;
export const COMPETITION_STATUSES = ['upcoming', 'active', 'ended'] as const;
export type CompetitionStatus = (typeof COMPETITION_STATUSES)[number];
export const COMPETITION_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,79}$';

export function competitionStatus(nowMs: number, startsAtMs: number, endsAtMs: number): CompetitionStatus {
  if (nowMs < startsAtMs) return 'upcoming';
  return nowMs < endsAtMs ? 'active' : 'ended';
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
