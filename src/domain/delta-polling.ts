/**
 * Delta polling (contract §4.1 rule 1): a read with `updatedSince` returns the rows changed at or
 * after it, and its `asOf` is the caller's next `updatedSince`.
 */

/** `asOf` steps back by this much, so a row committed a moment late is not missed (rows may repeat; de-duplicate by id). */
export const AS_OF_GRACE_MS = 5_000;

export const pollingAsOf = (nowMs: number) => new Date(nowMs - AS_OF_GRACE_MS).toISOString();

/**
 * `asOf` of a delta poll (with `updatedSince`) whose answer storage capped at a millisecond
 * boundary (src/storage/delta-window.ts: the oldest changes since `updatedSince`, never part of a
 * millisecond): the millisecond after the last change shown, or the usual grace-stepped asOf if
 * that is earlier. Nothing after the last shown row was left out except what lies beyond the
 * boundary, so the next poll starts there and a burst larger than the cap is read over several
 * polls instead of losing its oldest rows.
 */
export function deltaPollingAsOf(nowMs: number, changedAtMs: number[]): string {
  if (changedAtMs.length === 0) return pollingAsOf(nowMs);
  const afterLast = Math.floor(Math.max(...changedAtMs)) + 1;
  return new Date(Math.min(afterLast, nowMs - AS_OF_GRACE_MS)).toISOString();
}
