export interface WindowHit {
  /** Hits in the current window, including this one. */
  count: number;
  /** When the current window ends (ms epoch). */
  resetAtMs: number;
}

/** Fixed-window counters: one atomic increment per hit, so concurrent callers are counted exactly. */
export interface RateLimitStore {
  /** An in-process store may answer synchronously (no promise, no microtask per request). */
  hit(bucket: string, windowMs: number, nowMs: number): WindowHit | Promise<WindowHit>;
  close(): Promise<void>;
}

export function windowOf(nowMs: number, windowMs: number): { index: number; resetAtMs: number } {
  const index = Math.floor(nowMs / windowMs);
  return { index, resetAtMs: (index + 1) * windowMs };
}
