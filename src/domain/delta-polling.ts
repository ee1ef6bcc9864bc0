/**
 * Delta polling (contract §4.1 rule 1): a read with `updatedSince` returns the rows changed at or
 * after it, and its `asOf` is the caller's next `updatedSince`.
 */

/** `asOf` steps back by this much, so a row committed a moment late is not missed (rows may repeat; de-duplicate by id). */
export const AS_OF_GRACE_MS = 5_000;

export const pollingAsOf = (nowMs: number) => new Date(nowMs - AS_OF_GRACE_MS).toISOString();

/**
 * `asOf` of a delta poll that returns at most about `cap` rows. Storage takes the `cap` oldest
 * changes since `updatedSince` and every other change in the same millisecond as the last of them
 * (a cap never splits a millisecond, so the answer may hold a few more rows than `cap`). When the
 * cap was reached, more changes may wait: the next poll starts right after that millisecond
 * (or at the usual grace-stepped asOf, if that is earlier), so a burst larger than the cap is
 * read over several polls instead of losing its oldest rows.
 */
export function cappedPollingAsOf(nowMs: number, changedAtMs: number[], cap: number): string {
  if (changedAtMs.length < cap) return pollingAsOf(nowMs);
  const afterLast = Math.floor(Math.max(...changedAtMs)) + 1;
  return new Date(Math.min(afterLast, nowMs - AS_OF_GRACE_MS)).toISOString();
}
