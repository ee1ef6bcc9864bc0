/** Serve-time badges (supplement §3.9; thresholds are ours). */
export const BADGE_RULES = {
  veteranDecided: 10,
  sharpshooterWinRate: 0.6,
  sharpshooterDecided: 10,
  bigWinMusd: 1000,
  activeWithinMs: 86_400_000,
} as const;

export interface BadgeInput {
  decided: number;
  wins: number;
  venueTradeCounts: { spot: number; futures: number; pm: number };
  biggestWin: number;
  lastTradeAtMs: number | null;
}

export function badgesFor(a: BadgeInput, nowMs: number): string[] {
  const badges: string[] = [];
  if (a.decided >= BADGE_RULES.veteranDecided) badges.push('veteran_10');
  if (a.decided >= BADGE_RULES.sharpshooterDecided && a.wins / a.decided >= BADGE_RULES.sharpshooterWinRate) badges.push('sharpshooter');
  if (a.venueTradeCounts.spot > 0 && a.venueTradeCounts.futures > 0 && a.venueTradeCounts.pm > 0) badges.push('triple_venue');
  if (a.biggestWin >= BADGE_RULES.bigWinMusd) badges.push('big_win');
  if (a.lastTradeAtMs !== null && nowMs - a.lastTradeAtMs <= BADGE_RULES.activeWithinMs) badges.push('active_24h');
  return badges;
}
