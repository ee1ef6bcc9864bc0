import { describe, expect, it } from 'vitest';
import { BookWriteQueue } from '../../src/services/book-write-queue.js';

/** The in-process queue of one book's writes (src/services/book-write-queue.ts). */
const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('BookWriteQueue', () => {
  it('runs the writes of one book one after another, in order, and other books beside them', async () => {
    const queue = new BookWriteQueue();
    const log: string[] = [];
    const write = (book: number, name: string, ms: number) =>
      queue.run(book, async () => {
        log.push(`${name} start`);
        await later(ms, null);
        log.push(`${name} end`);
        return name;
      });
    const results = await Promise.all([write(1, 'a', 30), write(1, 'b', 5), write(2, 'x', 5), write(1, 'c', 1)]);
    expect(results).toEqual(['a', 'b', 'x', 'c']);
    expect(log.filter((l) => !l.startsWith('x'))).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    expect(log.indexOf('x end')).toBeLessThan(log.indexOf('a end')); // book 2 did not wait for book 1
    expect(queue.size).toBe(0);
  });

  it('rejects only the caller of a failing write; the next write of the book still runs', async () => {
    const queue = new BookWriteQueue();
    const failing = queue.run(1, async () => {
      await later(5, null);
      throw new Error('refused');
    });
    const next = queue.run(1, async () => 'ran');
    await expect(failing).rejects.toThrow('refused');
    await expect(next).resolves.toBe('ran');
    expect(queue.size).toBe(0);
  });

  it('gives up before starting (503 contention_retry) behind a write that takes too long, or when too many wait', async () => {
    const queue = new BookWriteQueue(2, 40);
    let release!: () => void;
    const stuck = queue.run(1, () => new Promise<string>((resolve) => (release = () => resolve('stuck done'))));
    await later(1, null); // it has started: it no longer counts as waiting
    let ranLate = false;
    const waiting = Promise.allSettled([
      queue.run(1, async () => {
        ranLate = true;
      }),
      queue.run(1, async () => 'second'),
    ]);
    // two wait already: a third is refused at once
    await expect(queue.run(1, async () => 'third')).rejects.toMatchObject({ statusCode: 503, code: 'contention_retry' });
    // and the two waiting give up after 40 ms without running
    const [waiter, second] = await waiting;
    expect(waiter).toMatchObject({ status: 'rejected', reason: { statusCode: 503, code: 'contention_retry' } });
    expect(second).toMatchObject({ status: 'rejected', reason: { statusCode: 503 } });
    expect(ranLate).toBe(false);
    // the book is free again once the stuck write ends
    release();
    await expect(stuck).resolves.toBe('stuck done');
    await expect(queue.run(1, async () => 'after')).resolves.toBe('after');
    expect(queue.size).toBe(0);
  });
});
