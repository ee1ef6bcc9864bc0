import type { RateLimitStore } from './store.js';

const MINUTE_MS = 60_000;
/** Look-ups of unknown or revoked keys one address may cause per minute before it is refused. */
export const FAILED_KEY_LOOKUPS_PER_MINUTE = 60;
/** Addresses remembered as blocked; beyond it the memory starts over (a flood of addresses). */
const MAX_BLOCKED = 10_000;

/**
 * Bounds the database look-ups a client can cause with keys that do not exist: a key that is
 * not cached costs a query, so an address sending random keys is counted (in the shared
 * rate-limit store) and, past the limit, refused without a look-up until the minute ends.
 */
export class FailedKeyLookups {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly store: RateLimitStore,
    private readonly limit = FAILED_KEY_LOOKUPS_PER_MINUTE,
  ) {}

  /** Milliseconds until `ip` may look keys up again; 0 when it may now. */
  waitMs(ip: string, nowMs: number): number {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return 0;
    if (nowMs < until) return until - nowMs;
    this.blockedUntil.delete(ip);
    return 0;
  }

  /** Counts a look-up that found no key; never throws (a failing store blocks nobody). */
  async failed(ip: string, nowMs: number): Promise<void> {
    try {
      const hit = await this.store.hit(`keymiss:${ip}`, MINUTE_MS, nowMs);
      if (hit.count < this.limit) return;
      if (this.blockedUntil.size >= MAX_BLOCKED) this.blockedUntil.clear();
      this.blockedUntil.set(ip, hit.resetAtMs);
    } catch {
      // counted nowhere: the 401 goes out as usual
    }
  }
}
