import { describe, expect, it } from 'vitest';
import { LedgerIdBlocks } from '../../src/ledger/id-blocks.js';

describe('LedgerIdBlocks (integer ledger ids before persistence)', () => {
  it('hands out each reserved id once, fetches the next block early, and never collides across blocks', async () => {
    let next = 1;
    let calls = 0;
    const ids = new LedgerIdBlocks(async () => {
      calls += 1;
      const start = next;
      next += 10;
      return start;
    }, 10);
    expect(ids.take()).toBeNull(); // nothing reserved yet; a fetch starts
    await ids.refill();
    const got: number[] = [];
    for (let i = 0; i < 25; i += 1) {
      const id = ids.take();
      if (id !== null) got.push(id);
      await Promise.resolve();
      await Promise.resolve();
    }
    expect(new Set(got).size).toBe(got.length);
    expect(got.length).toBeGreaterThanOrEqual(20);
    expect(got).toEqual([...got].sort((a, b) => a - b));
    expect(calls).toBeGreaterThanOrEqual(3);
  });

  it('a failing reservation yields null (header omitted), and a later take retries', async () => {
    let fail = true;
    const ids = new LedgerIdBlocks(async () => {
      if (fail) throw new Error('db down');
      return 5000;
    }, 10);
    await ids.refill();
    expect(ids.take()).toBeNull(); // starts another (failing) fetch
    await ids.refill();
    fail = false;
    expect(ids.take()).toBeNull(); // this take retries the reservation
    await ids.refill();
    expect(ids.take()).toBe(5000);
  });
});
