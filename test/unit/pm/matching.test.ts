import { describe, expect, it } from 'vitest';
import { analyze, matchMarkets, type MatchInput, type MatchResult } from '../../../src/pm/matching.js';

const bin = (source: string, slug: string, title: string, liquidity = 1000): MatchInput => ({ source, slug, title, kind: 'binary', outcomes: ['Yes', 'No'], liquidity, endAtMs: null });
const at = (m: MatchInput, endAtMs: number | null): MatchInput => ({ ...m, endAtMs });
const DAY = 86_400_000;
const DEC_7 = Date.UTC(2026, 11, 7, 18);
/** Members per canonical key, as source/slug, ignoring unmatched markets. */
const events = (results: MatchResult[]) => {
  const by = new Map<string, string[]>();
  for (const r of results) if (r.canonicalKey) by.set(r.canonicalKey, [...(by.get(r.canonicalKey) ?? []), `${r.source}/${r.slug}`].sort());
  return [...by.values()].sort((a, b) => a[0]!.localeCompare(b[0]!));
};
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

describe('canonical matching: names', () => {
  const pair = (a: string, b: string) => [bin('polymarket', 'a', a), bin('kalshi', 'b', b)];
  const matched = (a: string, b: string) => {
    const [x, y] = matchMarkets(pair(a, b));
    return x!.canonicalKey !== null && x!.canonicalKey === y!.canonicalKey;
  };

  it('never matches the same wording about different coins or people', () => {
    // 7 of 9 words shared: above the overlap threshold, different questions.
    expect(matched('Will the price of Bitcoin close above $100,000 on December 31, 2025?', 'Will the price of Ethereum close above $100,000 on December 31, 2025?')).toBe(false);
    expect(matched('Will Trump win the popular vote in the 2028 United States presidential election?', 'Will Harris win the popular vote in the 2028 United States presidential election?')).toBe(false);
    // Title Case hides names in capitals; a known coin name still counts.
    expect(matched('Will The Price Of Bitcoin Close Above $100,000 On December 31, 2025?', 'Will the price of Ethereum close above $100,000 on December 31, 2025?')).toBe(false);
    expect(matched('Will the price of BTC close above $100,000 on December 31, 2025?', 'Will the price of SOL close above $100,000 on December 31, 2025?')).toBe(false);
  });

  it('still matches the same question worded or cased differently', () => {
    expect(matched('Will the price of Bitcoin close above $100,000 on December 31, 2025?', 'Will the price of BTC close above $100,000 on December 31, 2025 UTC?')).toBe(true);
    expect(matched('Will The Price Of Bitcoin Close Above $100,000 On December 31, 2025?', 'Will the price of bitcoin close above $100,000 on December 31, 2025?')).toBe(true);
    expect(matched('Will Trump win the popular vote in the 2028 United States presidential election?', 'Will Donald Trump win the popular vote in the 2028 United States presidential election?')).toBe(true);
    expect(analyze('Will the price of Bitcoin close above $100,000 on December 31, 2025?', 'binary').names).toEqual(new Set(['bitcoin']));
  });

  it('reads words every object has a property of as words', () => {
    const { tokens, polarity } = analyze('Will McLaren win the 2026 F1 constructor title, or will toString?', 'binary');
    expect(tokens).toEqual(expect.arrayContaining(['constructor', 'tostring']));
    expect(tokens.every((t) => typeof t === 'string')).toBe(true);
    expect(polarity).toBe(1);
  });
});

describe('canonical matching: one market per venue', () => {
  const fed = 'Will the Fed cut rates at its Dec 2026 meeting?';
  const notFed = 'Will the Fed not cut rates at its Dec 2026 meeting?';
  // Three questions worded alike (the simulator's q426, q427, q433), told apart by when they close.
  const inputs = [
    at(bin('polymarket', 'p7', fed), DEC_7),
    at(bin('kalshi', 'k7', notFed), DEC_7),
    at(bin('gemini', 'g7', fed), DEC_7 + 3_600_000),
    at(bin('polymarket', 'p19', fed), DEC_7 + 12 * DAY),
    at(bin('myriad', 'm19', fed), DEC_7 + 12 * DAY),
    at(bin('kalshi', 'k21', fed), DEC_7 + 14 * DAY),
    at(bin('polymarket', 'p21', fed), DEC_7 + 14 * DAY),
    at(bin('gemini', 'g21', notFed), DEC_7 + 14 * DAY - 60_000),
  ];

  it('splits same-worded questions of one venue by close time, each venue once per event', () => {
    const results = matchMarkets(inputs);
    expect(events(results)).toEqual([
      ['gemini/g21', 'kalshi/k21', 'polymarket/p21'],
      ['gemini/g7', 'kalshi/k7', 'polymarket/p7'],
      ['myriad/m19', 'polymarket/p19'],
    ]);
    const by = new Map(results.map((r) => [r.slug, r]));
    expect(by.get('k7')!.orientation).toBe('flipped');
    expect(by.get('g21')!.orientation).toBe('flipped');
    expect(by.get('p19')!.orientation).toBe('same');
    expect(new Set(results.map((r) => r.canonicalKey)).size).toBe(3);
  });

  it('gives the same events and keys however the markets are ordered', () => {
    const one = matchMarkets(inputs);
    const two = matchMarkets([...inputs].reverse());
    for (const r of one) expect(two.find((x) => x.slug === r.slug)).toEqual(r);
  });

  it('prefers the nearest close time when several venues repeat', () => {
    const t = 'Will Bitcoin be above $91,000 at 12:30 UTC on Dec 7, 2026?';
    const results = matchMarkets([
      at(bin('polymarket', 'pa', t), DEC_7),
      at(bin('kalshi', 'ka', t), DEC_7),
      at(bin('myriad', 'mb', t), DEC_7 + 30 * 60_000),
      at(bin('polymarket', 'pb', t), DEC_7 + 30 * 60_000),
      at(bin('kalshi', 'kb', t), DEC_7 + 30 * 60_000),
    ]);
    expect(events(results)).toEqual([
      ['kalshi/ka', 'polymarket/pa'],
      ['kalshi/kb', 'myriad/mb', 'polymarket/pb'],
    ]);
  });

  it('leaves out what cannot be placed: a lone venue, a close time too far, an unknown close time', () => {
    const results = matchMarkets([
      at(bin('polymarket', 'p7', fed), DEC_7),
      at(bin('kalshi', 'k7', fed), DEC_7),
      at(bin('polymarket', 'p19', fed), DEC_7 + 12 * DAY),
      at(bin('myriad', 'm10', fed), DEC_7 + 3 * DAY),
      at(bin('gemini', 'gx', fed), null),
    ]);
    expect(events(results)).toEqual([['kalshi/k7', 'polymarket/p7']]);
    for (const slug of ['p19', 'm10', 'gx']) expect(results.find((r) => r.slug === slug)).toMatchObject({ canonicalKey: null, orientation: null, basis: null });
  });

  it('keeps a cluster whose venues do not repeat whole, with its text key, whatever the close times', () => {
    const plain = [bin('polymarket', 'a', fed), bin('kalshi', 'b', notFed)];
    const apart = [at(plain[0]!, DEC_7), at(plain[1]!, DEC_7 + 5 * DAY)];
    expect(events(matchMarkets(apart))).toEqual([['kalshi/b', 'polymarket/a']]);
    expect(keyOf(apart, 'a')).toBe(keyOf(plain, 'a'));
  });
});
