/**
 * The load scenarios, in run order. Adding one is one entry here: the harness
 * creates the keys, rotates `Authorization: Bearer <key>` across them when
 * `needsKey` is set, JSON-encodes `body`, checks one request answers
 * `expectStatus` before measuring, and adds a row to the results table.
 */
export interface Scenario {
  /** unique, short; used in the results table and in BENCH_SCENARIOS=name1,name2 */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** path + query string, e.g. '/api/agent/candles?coinId=1&interval=1h' */
  path: string;
  /** send `Authorization: Bearer <agent key>` (rotated over BENCH_KEYS keys) */
  needsKey: boolean;
  /** JSON request body (sent with content-type: application/json) */
  body?: unknown;
  /** status the pre-flight request must get (default 200); anything else aborts this scenario */
  expectStatus?: number;
  /** extra request headers */
  headers?: Record<string, string>;
  /** one line on what the scenario exercises, shown in latest.md */
  description?: string;
  /** a body field given a fresh value on every request (e.g. `idempotencyKey` for trade writes) */
  uniqueBodyField?: string;
}

export const scenarios: Scenario[] = [
  {
    name: 'agent-me',
    method: 'GET',
    path: '/api/agent/me',
    needsKey: true,
    description: 'key auth (hash lookup) + rate-limit + ledger headers + a small DB read',
  },
  {
    name: 'candles',
    method: 'GET',
    path: '/api/agent/market/1/candles?range=1D',
    needsKey: true,
    description: '288 BTC 5-minute candles (serialized once per market tick) + observation + ledger',
  },
  {
    name: 'market-context',
    method: 'GET',
    path: '/api/agent/market/1',
    needsKey: true,
    description: 'BTC market context: price, changes, sentiment, Fear & Greed, similar coins, observation',
  },
  {
    name: 'spot-market-order',
    method: 'POST',
    path: '/api/agent/spot/order',
    needsKey: true,
    body: { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.000001, idempotencyKey: 'preflight' },
    uniqueBodyField: 'idempotencyKey',
    description: 'spot market buy: idempotency claim + book lock + cash/coin postings + trade-log row in one transaction',
  },
  {
    name: 'portfolio',
    method: 'GET',
    path: '/api/agent/portfolio',
    needsKey: true,
    description: 'portfolio: book, holdings at mark, open orders, period PnL from snapshots, progression (after the order scenario)',
  },
  {
    name: 'pm-events-cached',
    method: 'GET',
    path: '/api/prediction-markets/events?limit=20',
    needsKey: false,
    description: 'keyless PM event list: per-IP budget + the 5 s response cache (serialized body reused)',
  },
  {
    name: 'futures-quote',
    method: 'POST',
    path: '/api/agent/futures/quote',
    needsKey: true,
    body: { coinId: '1', side: 'long', leverage: 10, marginMusd: 100 },
    description: 'futures quote: mark, liquidation, fee, entry gates (position + wallet reads), observation',
  },
  {
    name: 'futures-open',
    method: 'POST',
    path: '/api/agent/futures/open',
    needsKey: true,
    body: { coinId: '1', side: 'long', leverage: 10, marginMusd: 10, idempotencyKey: 'preflight-futures-open' },
    uniqueBodyField: 'idempotencyKey',
    expectStatus: 201,
    description: 'futures open, then adds to the same position: idempotency claim + book lock + row lock + postings + event in one transaction',
  },
  {
    name: 'positions-futures',
    method: 'GET',
    path: '/api/agent/positions/futures',
    needsKey: true,
    description: 'futures positions with a live mark (after the open scenario)',
  },
];
