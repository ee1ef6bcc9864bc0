/** Leaderboard windows (contract §4.2 rule 2). Day windows are whole UTC days including today. */
export const BOARD_WINDOWS = ['today', '24h', '7d', '30d', '3m', 'all'] as const;
export type BoardWindow = (typeof BOARD_WINDOWS)[number];
export const DEFAULT_WINDOW: BoardWindow = '3m';

export const DAY_MS = 86_400_000;
const WINDOW_DAYS: Record<'today' | '7d' | '30d' | '3m', number> = { today: 1, '7d': 7, '30d': 30, '3m': 90 };

export type WindowSpec =
  | { kind: 'all' }
  | { kind: 'days'; fromDay: string; days: string[] }
  | { kind: 'rolling'; fromMs: number; days: string[] };

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayStartMs = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** The UTC days from `fromMs`'s day to `toMs`'s day, oldest first. */
export function daysBetween(fromMs: number, toMs: number): string[] {
  const days: string[] = [];
  for (let t = dayStartMs(fromMs); t <= toMs; t += DAY_MS) days.push(utcDay(t));
  return days;
}

/**
 * What a window covers at `nowMs`. `3m` serves the all-time board while no trade is older than
 * its 90 days (`earliestTradeMs`), as the contract says; `all` is always all-time.
 */
export function resolveWindow(window: BoardWindow, nowMs: number, earliestTradeMs: number | null): WindowSpec {
  if (window === 'all') return { kind: 'all' };
  if (window === '24h') return { kind: 'rolling', fromMs: nowMs - DAY_MS, days: daysBetween(nowMs - DAY_MS, nowMs) };
  const fromMs = dayStartMs(nowMs) - (WINDOW_DAYS[window] - 1) * DAY_MS;
  if (window === '3m' && (earliestTradeMs === null || earliestTradeMs >= fromMs)) return { kind: 'all' };
  return { kind: 'days', fromDay: utcDay(fromMs), days: daysBetween(fromMs, nowMs) };
}

/** How long a computed board of this window stays valid without new trades (it moves with time). */
export function windowTimeBucket(window: BoardWindow, nowMs: number): number {
  if (window === 'all') return 0;
  if (window === '24h') return Math.floor(nowMs / 60_000);
  return Math.floor(nowMs / DAY_MS);
}
