/** Sparklines (supplement §3.10). */
export const ARENA_SPARK_POINTS = 44;
export const COMPETITION_SPARK_MAX_POINTS = 90;

export interface DayPnl {
  day: string; // YYYY-MM-DD
  pnl: number;
  realized: boolean; // at least one decided/neutral realization that day
}

/**
 * All-time form: one point per day of `days` (oldest first), each the cumulative all-time
 * realized PnL at that day's end; ends at `totalPnl`. Empty without a realization in range.
 */
export function allTimeSparkline(days: string[], rows: DayPnl[], totalPnl: number): number[] {
  const inRange = rows.filter((r) => r.day >= days[0]! && r.day <= days[days.length - 1]!);
  if (!inRange.some((r) => r.realized)) return [];
  const byDay = sumByDay(inRange);
  let running = totalPnl - inRange.reduce((s, r) => s + r.pnl, 0);
  return days.map((day) => round((running += byDay.get(day) ?? 0)));
}

/** Windowed form: starts at 0, then the cumulative windowed PnL at each day's end. */
export function windowedSparkline(days: string[], rows: DayPnl[], maxPoints = Infinity): number[] {
  const inRange = rows.filter((r) => r.day >= days[0]! && r.day <= days[days.length - 1]!);
  if (!inRange.some((r) => r.realized)) return [];
  const byDay = sumByDay(inRange);
  let running = 0;
  const points = [0, ...days.map((day) => round((running += byDay.get(day) ?? 0)))];
  return points.length > maxPoints ? points.slice(points.length - maxPoints) : points;
}

function sumByDay(rows: DayPnl[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const r of rows) map.set(r.day, (map.get(r.day) ?? 0) + r.pnl);
  return map;
}

const round = (x: number) => Math.round(x * 1e8) / 1e8;
