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
    name: 'pm-events-cached',
    method: 'GET',
    path: '/api/prediction-markets/events?limit=20',
    needsKey: false,
    description: 'keyless PM event list: per-IP budget + the 5 s response cache (serialized body reused)',
  },
];
