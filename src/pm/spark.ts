/** Sparkline points kept on each market row: ≤ 1 per 3.5 h over 7 days (supplement 2.15). */
import { DAY_MS, HOUR_MS } from './sim/questions.js';

/** A spark entry: [capturedAtMs, ...probabilities 0..100 in outcome order]. */
export type SparkEntry = number[];
const SPARK_SPACING_MS = 3.5 * HOUR_MS;
export const SPARK_WINDOW_MS = 7 * DAY_MS;

export const leaderIndex = (m: { kind: string }, probs: number[]): number =>
  m.kind === 'binary' ? 0 : probs.reduce((best, p, i) => (p > probs[best]! ? i : best), 0);

/** Appends a point, keeping at most one point per 3.5 h over 7 days (and always the latest). */
export function appendSpark(spark: SparkEntry[], entry: SparkEntry): SparkEntry[] {
  const out = spark.filter((e) => e[0]! > entry[0]! - SPARK_WINDOW_MS && e[0]! < entry[0]!);
  if (out.length >= 2 && out[out.length - 1]![0]! - out[out.length - 2]![0]! < SPARK_SPACING_MS) out.pop();
  out.push(entry);
  return out;
}

/** The captured past before `atMs`, then the prices seen at `atMs` (captured or not): what changes are read from. */
export const seriesAt = (spark: SparkEntry[], probs: number[], atMs: number): SparkEntry[] => [...spark.filter((e) => e[0]! < atMs), [atMs, ...probs]];

/**
 * How much younger than a long window's start the oldest point may be and still stand for it: the
 * spark keeps nothing at or before its 7-day start, and thins to one point per 3.5 h (plus an ingest).
 */
const LONG_WINDOW_BASE_SLACK_MS = 6 * HOUR_MS;

/** Change of outcome `i` over `windowMs`, from the spark, in points; null without an old enough point. */
export function changeOver(spark: SparkEntry[], i: number, nowMs: number, windowMs: number): number | null {
  if (spark.length < 2) return null;
  const last = spark[spark.length - 1]!;
  let base: SparkEntry | null = null;
  for (const e of spark) if (e[0]! <= nowMs - windowMs + SPARK_SPACING_MS / 2) base = e;
  // a market younger than the window has no change over it (a 7-day change of a market listed minutes ago read as one)
  if (!base && windowMs > DAY_MS && spark[0]![0]! <= nowMs - windowMs + LONG_WINDOW_BASE_SLACK_MS) base = spark[0]!;
  if (!base || base === last) return null;
  return Math.round((last[i + 1]! - base[i + 1]!) * 10) / 10;
}

