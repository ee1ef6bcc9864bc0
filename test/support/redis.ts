import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** Set to run the tests that need a real Redis (e.g. redis://127.0.0.1:6379); they are skipped otherwise. */
export const REDIS_URL = process.env.REDIS_URL ?? null;

/** A key prefix no other test run uses, so reruns and parallel files never share counters. */
export function uniqueRedisPrefix(label: string): string {
  return `pa:test:${label}:${process.pid}:${Date.now()}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix` (they expire on their own too; this keeps the server tidy). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
