import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FetchLike, HttpOptions } from '../../src/marketdata/live/http-json.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixture(path: string): unknown {
  return JSON.parse(readFileSync(`${FIXTURES}${path}`, 'utf8'));
}

type Answer = unknown | { status: number } | Error | 'hang';

/**
 * A fetch answering from recorded files: the first route whose pattern the URL matches
 * answers (a JSON body, an HTTP status, a thrown error, or 'hang' until the timeout
 * aborts). `down` makes every call fail like a dead network. Every URL asked is kept.
 */
export class FixtureFetch {
  readonly calls: string[] = [];
  down = false;
  constructor(public routes: [RegExp, () => Answer][]) {}

  readonly fetch: FetchLike = async (url, init) => {
    this.calls.push(url);
    if (this.down) throw new TypeError('fetch failed');
    const route = this.routes.find(([pattern]) => pattern.test(url));
    if (!route) return { ok: false, status: 404, headers: { get: () => null }, json: async () => ({ error: 'not found' }) };
    const answer = route[1]();
    if (answer instanceof Error) throw answer;
    if (answer === 'hang') {
      return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    }
    if (typeof answer === 'object' && answer !== null && 'status' in answer && typeof (answer as { status: unknown }).status === 'number') {
      return { ok: false, status: (answer as { status: number }).status, headers: { get: () => null }, json: async () => ({}) };
    }
    return { ok: true, status: 200, headers: { get: () => null }, json: async () => structuredClone(answer) };
  };
}

/** The recorded answers of both live sources. */
export function liveRoutes(): [RegExp, () => Answer][] {
  return [
    [/\/coins\/markets\?vs_currency=usd&ids=/, () => fixture('coingecko/markets-ids.json')],
    [/\/coins\/markets\?vs_currency=usd&order=market_cap_desc.*&page=1&.*price_change_percentage/, () => fixture('coingecko/markets-page-1.json')],
    [/\/coins\/markets\?vs_currency=usd&order=market_cap_desc.*page=[2-9]/, () => fixture('coingecko/markets-page-2.json')],
    [/\/coins\/bitcoin\/market_chart\?vs_currency=usd&days=1$/, () => fixture('coingecko/market-chart-bitcoin-1.json')],
    [/\/coins\/bitcoin\/market_chart\?vs_currency=usd&days=90$/, () => fixture('coingecko/market-chart-bitcoin-90.json')],
    [/\/exchange_rates$/, () => fixture('coingecko/exchange-rates.json')],
    [/api\.alternative\.me\/fng\//, () => fixture('alternative-me/fng.json')],
  ];
}

/** Retries without waiting, and a short timeout for the 'hang' answers. */
export function fastHttp(fetch: FetchLike, sleeps: number[] = []): HttpOptions {
  return { fetch, timeoutMs: 50, retries: 2, backoffMs: 1000, sleep: async (ms) => void sleeps.push(ms) };
}
