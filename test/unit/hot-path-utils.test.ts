import { describe, expect, it } from 'vitest';
import { scrubForStore } from '../../src/ledger/scrub.js';
import { canonicalJson } from '../../src/util/canonical-json.js';
import { uuidv7 } from '../../src/util/ids.js';
import { isoAt } from '../../src/util/iso-time.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and leaves undefined members out', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, undefined, { z: 1, y: null }], c: undefined } })).toBe('{"a":{"d":[1,null,{"y":null,"z":1}]},"b":1}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(new Date(0))).toBe('{}');
  });

  it('writes what JSON.stringify would reorder or drop key by key (integer-like keys, __proto__, holes)', () => {
    expect(canonicalJson({ '9': 1, '10': 2, a: 3 })).toBe('{"10":2,"9":1,"a":3}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":1}'))).toBe('{"__proto__":{"x":1},"a":1}');
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalJson([1, , 3])).toBe('[1,,3]');
  });
});

describe('uuidv7', () => {
  it('carries the millisecond timestamp in its first 48 bits, version 7 and the RFC variant', () => {
    const id = uuidv7(Date.UTC(2026, 10, 23, 12, 0, 0, 5));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Date.UTC(2026, 10, 23, 12, 0, 0, 5));
    expect(uuidv7(1) < uuidv7(2)).toBe(true);
    expect(new Set(Array.from({ length: 10_000 }, () => uuidv7(7))).size).toBe(10_000);
  });
});

describe('scrubForStore', () => {
  it('returns a storable value as it is, with the same size estimate as a scrubbed copy', () => {
    const row = { a: 'text 😀', b: [1, null, { c: new Date(0) }] };
    const kept = scrubForStore(row);
    expect(kept.value).toBe(row);
    expect(kept.bytes).toBe(scrubForStore({ ...row, d: '\u0000' }).bytes - 'd'.length - 3 - 3);
  });
});

describe('isoAt', () => {
  it('formats like Date#toISOString, however instants alternate', () => {
    for (const ms of [0, 8, 16, 1_795_458_916_489, 1_795_458_916_489, 7, 1.5]) expect(isoAt(ms)).toBe(new Date(ms).toISOString());
  });
});
