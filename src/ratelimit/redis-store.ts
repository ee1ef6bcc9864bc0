import { Redis } from 'ioredis';
import { MemoryRateLimitStore } from './memory-store.js';
import { windowOf, type RateLimitStore, type WindowHit } from './store.js';

/** At most one report of Redis trouble per this window. */
const REPORT_EVERY_MS = 30_000;
/** While Redis does not answer in time, it is asked again (a PING) this often; calls count in memory meanwhile. */
const STALL_PROBE_MS = 2_000;

// INCR and PEXPIRE in one script: atomic in Redis, so every process shares one exact count.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/**
 * Counters shared by every API process through Redis (`REDIS_URL`).
 *
 * While Redis is unreachable, each process counts alone in memory (budgets and RateLimit-*
 * headers go on, per process) instead of queueing each call behind ioredis's reconnect
 * attempts: queued calls would wait up to the command timeout, adding about a second to every
 * API request for as long as Redis is down. Only the very first connection attempt queues
 * calls, so requests at boot are still counted. A Redis that keeps its connection but stops
 * answering (paused, a long fork, a partition without a reset) is treated the same way after
 * one call times out: calls count in memory until a PING answers again. Trouble is reported
 * at most every 30 s.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  /** Set once a connection attempt failed or the connection dropped; cleared when Redis is ready again. */
  private unavailable = false;
  private readonly local = new MemoryRateLimitStore();
  private reportedAt = -Infinity;
  /** A call failed or timed out on a connection that looks up: counting in memory until a probe answers. */
  private stalled = false;
  private closed = false;

  constructor(
    url: string,
    private readonly onProblem: (error: unknown) => void = () => {},
    private readonly prefix = 'pa:rl:',
    /** How long one count may take before the request is counted in memory instead. */
    commandTimeoutMs = 1000,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs, lazyConnect: false });
    this.redis.on('error', (error: unknown) => {
      this.unavailable = true;
      this.report(error);
    });
    this.redis.on('close', () => {
      this.unavailable = true;
    });
    this.redis.on('ready', () => {
      this.unavailable = false;
    });
    this.redis.defineCommand('rateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(bucket: string, windowMs: number, nowMs: number): Promise<WindowHit> {
    if (this.stalled || (this.unavailable && this.redis.status !== 'ready')) return this.local.hit(bucket, windowMs, nowMs);
    const { index, resetAtMs } = windowOf(nowMs, windowMs);
    const key = `${this.prefix}${bucket}:${index}`;
    const run = (this.redis as unknown as { rateHit(key: string, ttl: number): Promise<number> }).rateHit;
    try {
      const count = await run.call(this.redis, key, windowMs * 2);
      return { count: Number(count), resetAtMs };
    } catch (error) {
      this.report(error);
      this.stall();
      return this.local.hit(bucket, windowMs, nowMs);
    }
  }

  /** Stops asking Redis per call until a PING answers (each call waited out the command timeout). */
  private stall(): void {
    if (this.stalled) return;
    this.stalled = true;
    const probe = () => {
      if (this.closed) return;
      this.redis.ping().then(
        () => {
          this.stalled = false;
        },
        () => setTimeout(probe, STALL_PROBE_MS).unref(),
      );
    };
    setTimeout(probe, STALL_PROBE_MS).unref();
  }

  private report(error: unknown): void {
    const now = Date.now();
    if (now - this.reportedAt < REPORT_EVERY_MS) return;
    this.reportedAt = now;
    this.onProblem(error);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.redis.disconnect();
    await this.local.close();
  }
}
