import { windowOf, type RateLimitStore, type WindowHit } from './store.js';

/** In-process counters for a single process (the embedded default). */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { index: number; count: number }>();
  private sweepAt = 0;

  hit(bucket: string, windowMs: number, nowMs: number): WindowHit {
    const { index, resetAtMs } = windowOf(nowMs, windowMs);
    this.sweep(nowMs, windowMs);
    const entry = this.counters.get(bucket);
    if (!entry || entry.index !== index) {
      this.counters.set(bucket, { index, count: 1 });
      return { count: 1, resetAtMs };
    }
    entry.count += 1;
    return { count: entry.count, resetAtMs };
  }

  /** Drops counters of past windows now and then, so idle keys and IPs do not accumulate. */
  private sweep(nowMs: number, windowMs: number): void {
    if (nowMs < this.sweepAt) return;
    this.sweepAt = nowMs + windowMs;
    const current = Math.floor(nowMs / windowMs);
    for (const [bucket, entry] of this.counters) if (entry.index < current) this.counters.delete(bucket);
  }

  async close(): Promise<void> {
    this.counters.clear();
  }
}
