import { Redis } from 'ioredis';
import { windowOf, type RateLimitStore, type WindowHit } from './store.js';

// INCR and PEXPIRE in one script: atomic in Redis, so every process shares one exact count.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/**
 * Counters shared by every API process through Redis (`REDIS_URL`).
 *
 * While Redis is unreachable, `hit` rejects at once (the caller admits the request) instead of
 * queueing each call behind ioredis's reconnect attempts: queued calls would wait up to the
 * command timeout, adding about a second to every API request for as long as Redis is down.
 * Only the very first connection attempt queues calls, so requests at boot are still counted.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  /** Set once a connection attempt failed or the connection dropped; cleared when Redis is ready again. */
  private unavailable = false;

  constructor(
    url: string,
    private readonly prefix = 'pa:rl:',
    /** How long one count may take before the request is admitted uncounted. */
    commandTimeoutMs = 1000,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs, lazyConnect: false });
    this.redis.on('error', () => {
      this.unavailable = true;
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
    if (this.unavailable && this.redis.status !== 'ready') throw new Error(`redis is unavailable (${this.redis.status})`);
    const { index, resetAtMs } = windowOf(nowMs, windowMs);
    const key = `${this.prefix}${bucket}:${index}`;
    const run = (this.redis as unknown as { rateHit(key: string, ttl: number): Promise<number> }).rateHit;
    const count = await run.call(this.redis, key, windowMs * 2);
    return { count: Number(count), resetAtMs };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
