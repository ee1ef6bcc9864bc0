/**
 * House (demo) agents: built-in strategy agents that trade spot through the same service
 * functions as `POST /api/agent/spot/order` (placeSpotOrder), pay the same costs
 * and write the same trade log, so a fresh install shows a living Arena board.
 */
import { HOUSE_AGENTS, type HouseAgentSpec } from '../arena/house/strategies.js';
import type { HouseBook, HouseCoinView, HouseFuturesBook, HouseFuturesOrder, HouseOrder } from '../arena/house/types.js';
import { SPOT_STALE_AFTER_SECONDS } from '../domain/freshness.js';
import { CASH_COIN_ID } from '../domain/money.js';
import { ApiError } from '../http/errors.js';
import { FUTURES_CLOSE_URL } from '../http/routes/agent/futures-close.js';
import { FUTURES_OPEN_URL } from '../http/routes/agent/futures-open.js';
import { ORDER_ROUTE } from '../http/routes/agent/spot.js';
import type { MarketReads } from '../marketdata/reads.js';
import type { Database, Db } from '../storage/db.js';
import { isLockContention, openPositionsOfKey } from '../storage/futures-repo.js';
import { listHoldings } from '../storage/holdings-repo.js';
import { claimHouseAgent, listHouseAgents, listHouseStrategies, markHouseStep, type HouseAgentRow } from '../storage/house-repo.js';
import type { Job } from '../workers/scheduler.js';
import { closeFuturesPosition } from './futures/close.js';
import { openFuturesPosition } from './futures/open.js';
import { createKey } from './keys.js';
import { ensureWallet, placeSpotOrder, tradeableCoin, type OrderInput } from './spot-trading.js';

/** The reserved owner of every house key. */
export const HOUSE_USER_ID = 'house';
/** One step per agent every 5 minutes; the step's tick is `floor(nowMs / HOUSE_STEP_MS)`. */
export const HOUSE_STEP_MS = 5 * 60_000;
/** Coins the house agents consider: the largest by market cap (stablecoins excluded). */
export const HOUSE_UNIVERSE_MAX_RANK = 50;

class LostClaim extends Error {}

/**
 * Creates the missing house agents: a public key each, owned by `house`, named after its
 * strategy. Safe to call from every process at every start: the `house_agents` primary key
 * lets one creator win and the others roll their key back.
 */
export async function ensureHouseAgents(db: Db, specs: readonly HouseAgentSpec[] = HOUSE_AGENTS): Promise<HouseAgentRow[]> {
  // A revoked house key is not replaced: revoking is how an operator retires one agent.
  const existing = new Set(await listHouseStrategies(db));
  for (const spec of specs) {
    if (existing.has(spec.strategy)) continue;
    try {
      await db.transaction(async (tx) => {
        const key = await createKey(tx, {
          userId: HOUSE_USER_ID,
          agentName: spec.agentName,
          agentModel: spec.agentModel,
          scopes: ['read', `trade:${spec.venue}`],
          public: true,
        });
        if (!(await claimHouseAgent(tx, spec.strategy, key.keyId))) throw new LostClaim();
      });
    } catch (error) {
      if (!(error instanceof LostClaim)) throw error;
    }
  }
  return listHouseAgents(db);
}

/** What the strategies see: fresh prices, 1h/24h changes and the last day's 5-minute closes. */
export function houseMarketView(reads: MarketReads, nowMs: number): HouseCoinView[] {
  const views: HouseCoinView[] = [];
  for (const coin of reads.coins()) {
    if (coin.rank > HOUSE_UNIVERSE_MAX_RANK || coin.coinId === CASH_COIN_ID || coin.categories.includes('Stablecoin')) continue;
    const quote = reads.quote(coin.coinId);
    if (!quote || nowMs - quote.asOfMs > SPOT_STALE_AFTER_SECONDS * 1000) continue;
    views.push({
      coinId: coin.coinId,
      priceUsd: quote.priceUsd,
      change1h: quote.change1h,
      change24h: quote.change24h,
      closes5m: reads.candles(coin.coinId, '1D').map((c) => c.c),
    });
  }
  return views;
}

export async function loadHouseBook(db: Db, keyId: number): Promise<HouseBook> {
  const wallet = await ensureWallet(db, keyId);
  const holdings = await listHoldings(db, wallet.id);
  return {
    cashUsd: wallet.available.toNumber(),
    positions: holdings
      .filter((h) => h.available.greaterThan(0))
      .map((h) => ({ coinId: h.coinId, quantity: h.available.toNumber(), avgCostUsd: h.avgCostUsd.toNumber() })),
  };
}

export async function loadHouseFuturesBook(db: Db, keyId: number): Promise<HouseFuturesBook> {
  const wallet = await ensureWallet(db, keyId);
  const positions = await openPositionsOfKey(db, keyId);
  return {
    cashUsd: wallet.available.toNumber(),
    positions: positions.map((p) => ({ positionId: p.id, coinId: p.coinId, side: p.side as 'long' | 'short' })),
  };
}

export interface HouseOrderOutcome<O = HouseOrder> {
  order: O;
  status: 'filled' | 'replayed' | 'refused';
  reason?: string;
}

/**
 * Places a step's orders as market orders. The idempotency key is derived from the tick,
 * side and coin, so running the same step again replays instead of trading twice; a key
 * already used this tick for another quantity (the book moved in between) is skipped.
 */
export async function executeHouseOrders(
  db: Db,
  market: MarketReads,
  keyId: number,
  tick: number,
  orders: readonly HouseOrder[],
  nowMs: number,
): Promise<HouseOrderOutcome[]> {
  const outcomes: HouseOrderOutcome[] = [];
  for (const order of orders) {
    const input: OrderInput = {
      coinId: order.coinId,
      side: order.side,
      orderType: 'market',
      quantity: order.quantity,
      idempotencyKey: `house-${tick}-${order.side}-${order.coinId}`,
    };
    try {
      const coin = tradeableCoin(market, order.coinId, 'body.coinId');
      const result = await placeSpotOrder(db, { market, nowMs }, keyId, coin, { ...input }, ORDER_ROUTE);
      outcomes.push({ order, status: result.replay ? 'replayed' : 'filled' });
    } catch (error) {
      outcomes.push({ order, status: 'refused', reason: refusal(error) });
    }
  }
  return outcomes;
}

/** A refusal the engines answer (or a row the risk job holds right now); anything else is a bug. */
function refusal(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (isLockContention(error)) return 'contention_retry';
  throw error;
}

/**
 * Opens and closes mock-futures positions through the same service functions and
 * idempotency as `POST /api/agent/futures/open` and `/close`; keys derive from the tick.
 */
export async function executeHouseFuturesOrders(
  db: Db,
  market: MarketReads,
  keyId: number,
  tick: number,
  orders: readonly HouseFuturesOrder[],
  nowMs: number,
  opensEnabled = true,
): Promise<HouseOrderOutcome<HouseFuturesOrder>[]> {
  const outcomes: HouseOrderOutcome<HouseFuturesOrder>[] = [];
  for (const order of orders) {
    try {
      let replay: boolean;
      if (order.kind === 'open') {
        if (!opensEnabled) throw new ApiError(403, 'feature_disabled', 'futures opens are not enabled');
        const coin = tradeableCoin(market, order.coinId, 'body.coinId');
        const { kind: _k, reason: _r, ...fields } = order;
        const idempotencyKey = `house-${tick}-open-${order.coinId}`;
        ({ replay } = await openFuturesPosition(db, market, nowMs, { keyId, coin, ...fields, idempotencyKey }, {
          route: `POST ${FUTURES_OPEN_URL}`,
          body: { ...fields, idempotencyKey },
        }));
      } else {
        const idempotencyKey = `house-${tick}-close-${order.positionId}`;
        const body = { positionId: order.positionId, fraction: 1, idempotencyKey };
        ({ replay } = await closeFuturesPosition(db, market, nowMs, { keyId, positionId: order.positionId, fraction: 1, idempotencyKey }, {
          route: `POST ${FUTURES_CLOSE_URL}`,
          body,
        }));
      }
      outcomes.push({ order, status: replay ? 'replayed' : 'filled' });
    } catch (error) {
      outcomes.push({ order, status: 'refused', reason: refusal(error) });
    }
  }
  return outcomes;
}

export interface HouseStepDeps {
  database: Database;
  reads: MarketReads;
  specs?: readonly HouseAgentSpec[];
  /** FUTURES_OPEN_ENABLED: when false the futures agent only closes. */
  futuresOpenEnabled?: boolean;
}

/**
 * One job run: every house agent decides on the market as it is now and trades. An agent
 * that already completed this tick is skipped, so a retried run never trades twice.
 */
export async function runHouseAgents(deps: HouseStepDeps, nowMs: number): Promise<Map<string, HouseOrderOutcome<HouseOrder | HouseFuturesOrder>[]>> {
  const db = deps.database.db;
  const specs = deps.specs ?? HOUSE_AGENTS;
  const agents = await ensureHouseAgents(db, specs);
  const tick = Math.floor(nowMs / HOUSE_STEP_MS);
  const market = houseMarketView(deps.reads, nowMs);
  const results = new Map<string, HouseOrderOutcome<HouseOrder | HouseFuturesOrder>[]>();
  for (const agent of agents) {
    const spec = specs.find((s) => s.strategy === agent.strategy);
    if (!spec || spec.venue === 'pm' || (agent.lastStepTick !== null && agent.lastStepTick >= tick)) continue;
    if (spec.venue === 'spot') {
      const orders = spec.decide(market, await loadHouseBook(db, agent.keyId));
      results.set(agent.strategy, await executeHouseOrders(db, deps.reads, agent.keyId, tick, orders, nowMs));
    } else {
      const orders = spec.decide(market, await loadHouseFuturesBook(db, agent.keyId));
      const opens = deps.futuresOpenEnabled !== false;
      results.set(agent.strategy, await executeHouseFuturesOrders(db, deps.reads, agent.keyId, tick, orders, nowMs, opens));
    }
    await markHouseStep(db, agent.strategy, tick);
  }
  return results;
}

export function houseAgentsJob(deps: HouseStepDeps): Job {
  return {
    name: 'house-agents',
    intervalMs: HOUSE_STEP_MS,
    async run(nowMs) {
      await runHouseAgents(deps, nowMs);
    },
  };
}
