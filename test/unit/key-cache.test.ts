import { describe, expect, it } from 'vitest';
import { KeyCache } from '../../src/services/key-cache.js';

const key = { keyId: 7, userId: 'u', scopes: ['read' as const], agentName: null, agentModel: null };

describe('KeyCache', () => {
  it('does not keep a key read while a change to any key arrived (the read may predate a revoke)', () => {
    const cache = new KeyCache();
    cache.setEnabled(true);
    const before = cache.mark();
    cache.evictKey(7); // the revoke's notice, handled while the database read was on its way
    cache.set('h', key, 0, before);
    expect(cache.get('h', 1)).toBeUndefined();
    cache.set('h', key, 0, cache.mark());
    expect(cache.get('h', 1)).toEqual(key);
  });

  it('a read that spans a disable and re-enable of the change feed is not kept either', () => {
    const cache = new KeyCache();
    cache.setEnabled(true);
    const before = cache.mark();
    cache.setEnabled(false);
    cache.setEnabled(true);
    cache.set('h', key, 0, before);
    expect(cache.get('h', 1)).toBeUndefined();
  });
});
