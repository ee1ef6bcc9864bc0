import { describe, expect, it } from 'vitest';
import { ALL_BOOKS, BookCache } from '../../src/storage/book-cache.js';

describe('BookCache', () => {
  it('stores a read only if no change to its key arrived while it ran', () => {
    const c = new BookCache();
    const token = c.token(1);
    c.changed('1');
    c.store(1, 'q', { a: 1 }, token);
    expect(c.get(1, 'q')).toBeUndefined();
    c.store(1, 'q', { a: 2 }, c.token(1));
    expect(c.get(1, 'q')).toEqual({ a: 2 });
    const other = c.token(2);
    c.changed('1'); // another key's change does not spoil key 2's read
    c.store(2, 'q', { b: 1 }, other);
    expect(c.get(2, 'q')).toEqual({ b: 1 });
    expect(c.get(1, 'q')).toBeUndefined();
  });

  it('a change inside an open transaction holds the key until it ends', () => {
    const c = new BookCache();
    c.store(1, 'q', { a: 1 }, c.token(1));
    c.hold('1');
    expect(c.get(1, 'q')).toBeUndefined();
    const during = c.token(1);
    c.store(1, 'q', { a: 'old' }, during); // a read while the transaction is open: not kept
    expect(c.get(1, 'q')).toBeUndefined();
    c.release('1');
    c.store(1, 'q', { a: 'old' }, during); // nor after it ended
    expect(c.get(1, 'q')).toBeUndefined();
    c.store(1, 'q', { a: 'new' }, c.token(1));
    expect(c.get(1, 'q')).toEqual({ a: 'new' });
  });

  it('a set-wide change drops and holds every book', () => {
    const c = new BookCache();
    c.store(1, 'q', 1, c.token(1));
    c.store(2, 'q', 2, c.token(2));
    const before = c.token(3);
    c.hold(ALL_BOOKS);
    expect(c.get(1, 'q')).toBeUndefined();
    c.store(3, 'q', 3, c.token(3));
    expect(c.get(3, 'q')).toBeUndefined();
    c.release(ALL_BOOKS);
    c.store(3, 'q', 3, before);
    expect(c.get(3, 'q')).toBeUndefined();
    c.store(3, 'q', 3, c.token(3));
    expect(c.get(3, 'q')).toBe(3);
    c.changed('not-a-key'); // unreadable payload: every book
    expect(c.get(3, 'q')).toBeUndefined();
  });

  it('keeps a bounded number of reads per key, least recently used out', () => {
    const c = new BookCache();
    for (let i = 0; i < 16; i += 1) c.store(1, `q${i}`, i, c.token(1));
    expect(c.get(1, 'q0')).toBe(0); // used: kept
    for (let i = 16; i < 20; i += 1) c.store(1, `q${i}`, i, c.token(1));
    expect(c.get(1, 'q0')).toBe(0);
    expect(c.get(1, 'q1')).toBeUndefined();
    expect(c.get(1, 'q19')).toBe(19);
  });
});

describe('BookCache.read', () => {
  it('concurrent misses share one database read, unless a change arrived since it started', async () => {
    const c = new BookCache();
    let loads = 0;
    let finish!: (v: string) => void;
    const load = () => {
      loads += 1;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    const a = c.read(1, 'q', load);
    const b = c.read(1, 'q', load); // joins a
    expect(loads).toBe(1);
    c.changed('1'); // a write answered: a later read must not join the older one
    const later = c.read(1, 'q', () => Promise.resolve('after'));
    finish('before');
    expect(await a).toBe('before');
    expect(await b).toBe('before');
    expect(await later).toBe('after');
    expect(c.get(1, 'q')).toBe('after'); // the older read was not kept
  });
});
