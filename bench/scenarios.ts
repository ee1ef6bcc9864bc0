/**
 * The load scenarios, in run order. Adding one is one entry here: the harness
 * creates the keys, rotates `Authorization: Bearer <key>` across them when
 * `needsKey` is set, JSON-encodes `body`, checks one request answers
 * `expectStatus` before measuring, and adds a row to the results table, as a ratio
 * to the row's reference (the bare-Fastify ceiling, or the engine's write reference).
 */
import type autocannon from 'autocannon';

/** What a scenario's `prepare` and `build` get from the harness. */
export interface ScenarioContext {
  baseUrl: string;
  /** the rotated agent keys (BENCH_KEYS) */
  keys: string[];
  /** two keys kept out of the rotation: the "10 orders" and "10,000 orders" histories */
  historyKeys: { short: string; long: string };
  /** a fresh unique string (idempotency keys) */
  unique(): string;
  /** sends `amount` requests over `connections` connections (seeding, not measured) */
  seed(requests: autocannon.Request[], amount: number, connections: number): Promise<{ non2xx: number; errors: number }>;
  /** values a `prepare` leaves for its `build` (per engine run) */
  state: Record<string, unknown>;
  /** BENCH_HISTORY_ORDERS (default 10,000) */
  historyOrders: number;
}

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
  /**
   * What the row's req/s is a ratio of: `ceiling` (bare Fastify; reads) or `write` (the same
   * run's write reference of the engine: pgbench TPC-B-like on PostgreSQL, the raw PGlite
   * transaction loop on PGlite). Default `ceiling`.
   */
  reference?: 'ceiling' | 'write';
  /** connections for this row (default BENCH_CONNECTIONS; trade writes use 16, as their targets) */
  connections?: number;
  /** runs once before the row (e.g. finds a PM market, seeds a key's history) */
  prepare?: (ctx: ScenarioContext) => Promise<void>;
  /** builds the request cycle itself (sequences, dedicated keys); no pre-flight then */
  build?: (ctx: ScenarioContext) => autocannon.Request[];
}

const WRITE_CONNECTIONS = 16;

/** The request cycle of a scenario without `build`: its body JSON-encoded, keys rotated, the unique field fresh per request. */
export function requestsFor(scenario: Scenario, keys: string[], unique: () => string): autocannon.Request[] {
  const base: Record<string, string> = { ...(scenario.headers ?? {}) };
  const body = scenario.body === undefined ? undefined : JSON.stringify(scenario.body);
  if (body !== undefined) base['content-type'] = 'application/json';
  const make = (key?: string): autocannon.Request => ({
    method: scenario.method,
    path: scenario.path,
    headers: key ? { ...base, authorization: `Bearer ${key}` } : base,
    ...(body !== undefined ? { body } : {}),
  });
  const requests = scenario.needsKey ? keys.map((k) => make(k)) : [make()];
  const field = scenario.uniqueBodyField;
  if (field === undefined) return requests;
  // Trade writes need a fresh idempotency key per request: rewrite that one field each time.
  const template = (scenario.body ?? {}) as Record<string, unknown>;
  return requests.map((r) => ({ ...r, setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify({ ...template, [field]: unique() }) }) }));
}
const json = (value: unknown) => JSON.stringify(value);
const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const parse = (body: string): Record<string, any> | null => {
  try {
    return JSON.parse(body) as Record<string, any>;
  } catch {
    return null;
  }
};

/**
 * A two-step cycle on a key no other connection is using meanwhile (so a close never meets a
 * position another connection just closed): `first` (fresh idempotency key), then `second`
 * built from the first's answer; `second` is skipped when the first failed.
 */
function claimedPair(
  ctx: ScenarioContext,
  first: { path: string; body: Record<string, unknown> },
  capture: (answer: Record<string, any>) => unknown,
  second: (captured: unknown) => { path: string; body?: Record<string, unknown> },
): autocannon.Request[] {
  const free = [...ctx.keys];
  let spare = 0;
  const release = (context: Record<string, unknown>) => {
    if (typeof context.key === 'string' && context.claimed) free.push(context.key);
    context.key = undefined;
    context.claimed = false;
  };
  return [
    {
      method: 'POST',
      path: first.path,
      setupRequest: (request, context) => {
        if (typeof context.key !== 'string') {
          const claimed = free.shift();
          // More connections than keys (or keys lost by a run stopped mid-cycle): share one.
          context.key = claimed ?? ctx.keys[(spare += 1) % ctx.keys.length];
          context.claimed = claimed !== undefined;
        }
        return { ...request, headers: auth(context.key as string), body: json({ ...first.body, idempotencyKey: ctx.unique() }) };
      },
      onResponse: (status, body, context) => {
        context.captured = status < 300 ? capture(parse(body) ?? {}) : undefined;
        if (context.captured === undefined || context.captured === null) release(context);
      },
    },
    {
      method: 'POST',
      path: first.path,
      setupRequest: (request, context) => {
        // undefined = skip this step (autocannon moves on to the next request)
        if (context.captured === undefined || context.captured === null || typeof context.key !== 'string') return undefined as unknown as autocannon.Request;
        const next = second(context.captured);
        const headers = next.body ? auth(context.key) : { authorization: `Bearer ${context.key}` };
        return { ...request, path: next.path, headers, body: next.body ? json({ ...next.body, idempotencyKey: ctx.unique() }) : undefined };
      },
      onResponse: (_status, _body, context) => release(context),
    },
  ];
}

/** The portfolio of one key after 10 or BENCH_HISTORY_ORDERS spot market orders on it. */
function historyScenario(name: string, which: 'short' | 'long'): Scenario {
  return {
    name,
    method: 'GET',
    path: '/api/agent/portfolio',
    needsKey: true,
    description: `portfolio of one key after ${which === 'short' ? '10' : 'BENCH_HISTORY_ORDERS (10,000)'} spot market orders (seeded first, 16 connections): flat in history`,
    prepare: async (ctx) => {
      const key = ctx.historyKeys[which];
      const amount = which === 'short' ? 10 : ctx.historyOrders;
      const template = { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.000001 };
      const order: autocannon.Request = {
        method: 'POST',
        path: '/api/agent/spot/order',
        headers: auth(key),
        setupRequest: (request) => ({ ...request, body: json({ ...template, idempotencyKey: ctx.unique() }) }),
      };
      const seeded = await ctx.seed([order], amount, Math.min(WRITE_CONNECTIONS, amount));
      if (seeded.non2xx + seeded.errors > 0) throw new Error(`seeding ${amount} orders: ${seeded.non2xx} non-2xx, ${seeded.errors} errors`);
      // the seed's ledger rows are written behind the answers; /performance writes them through, so the
      // measured reads do not share the database with a 10,000-row backlog
      const flushed = await fetch(`${ctx.baseUrl}/api/agent/performance`, { headers: auth(key) });
      if (!flushed.ok) throw new Error(`writing the seed's ledger rows through: GET /api/agent/performance answered ${flushed.status}`);
    },
    build: (ctx) => [{ method: 'GET', path: '/api/agent/portfolio', headers: { authorization: `Bearer ${ctx.historyKeys[which]}` } }],
  };
}

/** A keyed GET (reads rotate over every key). */
const read = (name: string, path: string, description: string): Scenario => ({ name, method: 'GET', path, needsKey: true, description });

/** The first open, openable binary market of a trading venue (from the keyed discover list). */
async function findPmMarket(ctx: ScenarioContext): Promise<{ source: string; slug: string; outcome: string }> {
  if (ctx.state.pmMarket) return ctx.state.pmMarket as { source: string; slug: string; outcome: string };
  const response = await fetch(`${ctx.baseUrl}/api/agent/pm/discover?limit=50`, { headers: auth(ctx.keys[0]!) });
  const body = (await response.json()) as { data?: { source: string; slug: string; eligible: boolean; outcomes: { externalMarketId: string; eligible: boolean }[] }[] };
  for (const item of body.data ?? []) {
    const outcome = item.eligible ? item.outcomes.find((o) => o.eligible) : undefined;
    if (outcome) return (ctx.state.pmMarket = { source: item.source, slug: item.slug, outcome: outcome.externalMarketId }) as never;
  }
  throw new Error(`no openable PM market in /api/agent/pm/discover (status ${response.status})`);
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
    description: 'BTC market context (serialized once per market tick): price, changes, sentiment, Fear & Greed, similar coins, observation',
  },
  read('resolve', '/api/agent/resolve?q=btc', 'resolve "btc" (answer cached per query)'),
  {
    name: 'spot-market-order',
    method: 'POST',
    path: '/api/agent/spot/order',
    needsKey: true,
    body: { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.000001, idempotencyKey: 'preflight' },
    uniqueBodyField: 'idempotencyKey',
    reference: 'write',
    connections: WRITE_CONNECTIONS,
    description: 'spot market buy: idempotency claim + book lock + cash/coin postings + trade-log row in one transaction',
  },
  {
    name: 'spot-limit-cancel',
    method: 'POST',
    path: '/api/agent/spot/order',
    needsKey: true,
    reference: 'write',
    connections: WRITE_CONNECTIONS,
    description: 'a resting spot limit buy far below the market, then its cancel (2 trade writes per cycle; req/s counts both)',
    build: (ctx) =>
      claimedPair(
        ctx,
        { path: '/api/agent/spot/order', body: { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.0001, limitPrice: 1_000 } },
        (answer) => answer.restingOrderId,
        (id) => ({ path: `/api/agent/spot/order/${String(id)}/cancel` }),
      ),
  },
  read('portfolio', '/api/agent/portfolio', 'portfolio: book, holdings at mark, open orders, period PnL from snapshots, progression (after the order scenarios)'),
  read('wallet', '/api/agent/wallet?coinId=1', 'wallet: cash partitions and one coin asset'),
  read('trades', '/api/agent/trades?limit=25', 'trade log of every venue, most recent first'),
  read('equity-curve', '/api/agent/equity-curve?days=30', 'daily equity points with today live'),
  read('performance', '/api/agent/performance', 'realized totals by venue, drawdown, audit stats (running totals)'),
  historyScenario('portfolio-10-orders', 'short'),
  historyScenario('portfolio-10k-orders', 'long'),
  {
    name: 'pm-events-cached',
    method: 'GET',
    path: '/api/prediction-markets/events?limit=20',
    needsKey: false,
    description: 'keyless PM event list: per-IP budget + the 5 s response cache (serialized body reused)',
  },
  {
    name: 'pm-events-cached-br',
    method: 'GET',
    path: '/api/prediction-markets/events?limit=20',
    headers: { 'accept-encoding': 'gzip, deflate, br' },
    needsKey: false,
    description: 'the same list for a client that accepts compression (browsers, fetch, curl --compressed): brotli body made once per cached body',
  },
  {
    name: 'pm-event-detail',
    method: 'GET',
    path: '/api/prediction-markets/events/{source}/{slug}',
    needsKey: false,
    description: 'keyless PM event detail (cached per event)',
    prepare: async (ctx) => void (await findPmMarket(ctx)),
    build: (ctx) => {
      const m = ctx.state.pmMarket as { source: string; slug: string };
      return [{ method: 'GET', path: `/api/prediction-markets/events/${m.source}/${encodeURIComponent(m.slug)}` }];
    },
  },
  {
    name: 'leaderboard',
    method: 'GET',
    path: '/api/arena',
    needsKey: false,
    description: 'keyless Arena board (default window)',
  },
  {
    name: 'pm-quote',
    method: 'POST',
    path: '/api/agent/pm/quote',
    needsKey: true,
    description: 'PM quote of 10 mUSD on one binary market: the market read from the database, fill, gates, observation',
    prepare: async (ctx) => void (await findPmMarket(ctx)),
    build: (ctx) => {
      const m = ctx.state.pmMarket as { source: string; slug: string; outcome: string };
      const body = json({ source: m.source, slug: m.slug, outcomeExternalMarketId: m.outcome, stakeMusd: 10 });
      return ctx.keys.map((key) => ({ method: 'POST', path: '/api/agent/pm/quote', headers: auth(key), body }));
    },
  },
  {
    name: 'pm-open',
    method: 'POST',
    path: '/api/agent/pm/open',
    needsKey: true,
    reference: 'write',
    connections: WRITE_CONNECTIONS,
    description: 'PM open of 10 mUSD on one binary market: stake frozen, position + decision record in one transaction',
    prepare: async (ctx) => void (await findPmMarket(ctx)),
    build: (ctx) => {
      const m = ctx.state.pmMarket as { source: string; slug: string; outcome: string };
      const template = { source: m.source, slug: m.slug, outcomeExternalMarketId: m.outcome, stakeMusd: 10 };
      return ctx.keys.map((key) => ({
        method: 'POST',
        path: '/api/agent/pm/open',
        headers: auth(key),
        setupRequest: (request: autocannon.Request) => ({ ...request, body: json({ ...template, idempotencyKey: ctx.unique() }) }),
      }));
    },
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
    reference: 'write',
    connections: WRITE_CONNECTIONS,
    description: 'futures open, then adds to the same position: idempotency claim + book lock + row lock + postings + event in one transaction',
  },
  {
    name: 'positions-futures',
    method: 'GET',
    path: '/api/agent/positions/futures',
    needsKey: true,
    description: 'futures positions with a live mark (after the open scenario)',
  },
  {
    name: 'futures-open-close',
    method: 'POST',
    path: '/api/agent/futures/open',
    needsKey: true,
    reference: 'write',
    connections: WRITE_CONNECTIONS,
    description: 'futures open of an ETH short, then its close (2 trade writes per cycle; req/s counts both)',
    build: (ctx) =>
      claimedPair(
        ctx,
        { path: '/api/agent/futures/open', body: { coinId: '1027', side: 'short', leverage: 5, marginMusd: 10 } },
        (answer) => answer.position?.id ?? answer.positionId,
        (positionId) => ({ path: '/api/agent/futures/close', body: { positionId } }),
      ),
  },
];
