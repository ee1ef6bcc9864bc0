import { describe, expect, it } from 'vitest';
import { analyze, matchMarkets, type MatchInput } from '../../../src/pm/matching.js';

const bin = (source: string, slug: string, title: string, liquidity = 1000): MatchInput => ({ source, slug, title, kind: 'binary', outcomes: ['Yes', 'No'], liquidity });
const keyOf = (inputs: MatchInput[], slug: string) => matchMarkets(inputs).find((r) => r.slug === slug)!.canonicalKey;

describe('canonical matching: dates', () => {
  it('reads month names, short, full and "sept", as part of the date key', () => {
    expect(analyze('Will US CPI inflation be above 3.00% in Oct 2025?', 'binary').numbers).toBe('2025,3.00,oct');
    expect(analyze('Will US CPI inflation be above 3.00% in October 2025?', 'binary').numbers).toBe('2025,3.00,oct');
    expect(analyze('Will it rain on Sept 1, 2025?', 'binary').numbers).toBe(analyze('Will it rain on September 1, 2025?', 'binary').numbers);
    expect(analyze('Will it rain on Sept 1, 2025?', 'binary').numbers).toBe(analyze('Will it rain on Sep 1, 2025?', 'binary').numbers);
  });

  it('never matches questions that differ only in the month', () => {
    const cpi = [bin('polymarket', 'a', 'Will US CPI inflation be above 3.00% in Oct 2025?'), bin('kalshi', 'b', 'Will US CPI inflation be above 3.00% in Sep 2025?')];
    expect(keyOf(cpi, 'a')).toBeNull();
    expect(keyOf(cpi, 'b')).toBeNull();
    const match = [bin('polymarket', 'a', 'Will the Bayview Bears beat the Dunmore Dragons on Feb 1, 2025?'), bin('kalshi', 'b', 'Will the Dunmore Dragons beat the Bayview Bears on Nov 1, 2025?')];
    expect(keyOf(match, 'a')).toBeNull();
    // Fuzzy overlap (≥ 75 %) needs the same months too.
    const fuzzy = [bin('polymarket', 'a', 'Will the Helios solar probe launch before March 3, 2026?'), bin('kalshi', 'b', 'Will the Helios solar probe launch before May 3, 2026?')];
    expect(keyOf(fuzzy, 'a')).toBeNull();
  });

  it('still matches the same date written with a short and a full month name', () => {
    const inputs = [bin('polymarket', 'a', 'Will the Helios solar probe launch before March 3, 2026?'), bin('kalshi', 'b', 'Will the Helios solar probe launch before Mar 3, 2026?')];
    const results = matchMarkets(inputs);
    expect(results[0]!.canonicalKey).not.toBeNull();
    expect(results[0]!.canonicalKey).toBe(results[1]!.canonicalKey);
    expect(results.map((r) => r.orientation)).toEqual(['same', 'same']);
  });
});
