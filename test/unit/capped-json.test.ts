import { describe, expect, it } from 'vitest';
import { readCappedJson } from '../../src/util/capped-json.js';
import { getJson } from '../../src/pm/live/http.js';

describe('readCappedJson: a live source answer is read up to a size', () => {
  it('reads an answer within the cap, refuses one past it (it was read whole: 150 MB, a gzip bomb)', async () => {
    expect(await readCappedJson(new Response(JSON.stringify({ a: [1, 2] })), 100)).toEqual({ a: [1, 2] });
    await expect(readCappedJson(new Response(JSON.stringify({ pad: 'x'.repeat(200) })), 100)).rejects.toThrow('answer larger than 100 bytes');
  });

  it('holds a PM venue answer to the default cap', async () => {
    const huge = new Response(`[${'0,'.repeat(9 * 1024 * 1024)}0]`);
    await expect(getJson((async () => huge) as typeof fetch, 'https://venue.example/markets')).rejects.toThrow(/answer larger than/);
  });
});
