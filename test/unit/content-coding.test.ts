import { describe, expect, it } from 'vitest';
import { acceptedCoding, CodedBody } from '../../src/http/content-coding.js';

describe('acceptedCoding', () => {
  it('picks br or gzip by weight (br on a tie), honours q=0 and *, ignores case and spaces', () => {
    const cases: [string | string[] | undefined, string | null][] = [
      [undefined, null],
      ['', null],
      ['identity', null],
      ['deflate', null],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['GZIP , Deflate', 'gzip'],
      ['br', 'br'],
      ['gzip, br', 'br'],
      ['br;q=0.4, gzip;q=0.8', 'gzip'],
      ['br; q=0.9, gzip', 'gzip'],
      ['gzip;q=0', null],
      ['gzip;q=0, br', 'br'],
      ['*', 'br'],
      ['*;q=0', null],
      ['br;q=0, *', 'gzip'],
      ['gzip;q=abc', null],
      [['gzip', 'br;q=0.1'], 'gzip'],
    ];
    for (const [header, expected] of cases) expect(acceptedCoding(header), String(header)).toBe(expected);
  });
});

describe('CodedBody', () => {
  it('keeps small bodies as they are and compresses each coding once', () => {
    const small = new CodedBody(Buffer.from('{"a":1}'), '"t"');
    expect(small.form('gzip')).toEqual({ bytes: small.bytes, etag: '"t"', coding: null });
    const big = new CodedBody(Buffer.from(JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, name: 'row' })) })), '"abc"');
    const gzip = big.form('gzip');
    expect(gzip).toMatchObject({ etag: '"abc-gzip"', coding: 'gzip' });
    expect(big.form('gzip').bytes).toBe(gzip.bytes);
    expect(big.form('br').etag).toBe('"abc-br"');
    expect(big.form(null)).toEqual({ bytes: big.bytes, etag: '"abc"', coding: null });
  });
});
