/**
 * Spot paper trading use cases: quote, market and resting orders, cancel, and the fill of
 * a resting order. Each write reads the book once, decides in src/domain/spot-orders.ts and
 * writes every effect (postings with their journal rows, trade, order, idempotency record)
 * in one statement (runTradeWrite).
 */
import type { CoinRef } from '../domain/coin-ref.js';
import { EXECUTION_VERSION, executionModel, SPOT_TAKER_FEE_BPS, spotSpreadBps, type ExecutionModel } from '../domain/execution-model.js';
import { SPOT_STALE_AFTER_SECONDS, spotFreshness, type Freshness } from '../domain/freshness.js';
import { Decimal, orderAmount, priceToWire, toWire } from '../domain/money.js';
import { decideMarketOrder, type BlockReason, type Side } from '../domain/spot.js';
import { decideCancel, decideRestingFill, decideSpotOrder, isResting, type RestingFillPrice } from '../domain/spot-orders.js';
import { ApiError, blocked } from '../http/errors.js';
import type { MarketFeed, PriceObservation } from '../marketdata/feed.js';
import type { Db } from '../storage/db.js';
import { findWallet, lockWallet, type Wallet } from '../storage/books-repo.js';
import type { SpotOrderRow } from '../storage/spot-orders-repo.js';
import { readBook, type BookSnapshot } from '../storage/trade-write-repo.js';
import { runTradeWrite, type Decided } from './trade-write.js';

export interface OrderInput {
  coinId: string;
  side: Side;
  orderType: 'market' | 'limit' | 'stop';
  quantity: number;
  limitPrice?: number | null;
  stopPrice?: number | null;
  idempotencyKey: string;
}

/** The coin's catalogue entry, or 404 `coin_not_found`; the cash coin itself is not tradeable. */
export function tradeableCoin(market: MarketFeed, coinId: string, field: string): CoinRef {
  const coin = market.coin(coinId);
  if (!coin) throw new ApiError(404, 'coin_not_found', `no coin with coinId ${coinId}`);
  if (coin.coinId === '825') throw new ApiError(400, 'invalid_request', 'USDT (825) is the cash coin and cannot be traded', { field });
  return coin;
}

/** A price the write path may use: known and not past the 120 s stale mark. */
export function usablePrice(market: Pick<MarketFeed, 'price'>, coinId: string, nowMs: number): PriceObservation | null {
  const price = market.price(coinId);
  if (!price || nowMs - price.asOfMs > SPOT_STALE_AFTER_SECONDS * 1000) return null;
  return price;
}

/** Creates (funds) the key's book on first use, so reads of a new key show its 50,000 mUSD. */
export async function ensureWallet(db: Db, keyId: number): Promise<Wallet> {
  return (await findWallet(db, keyId)) ?? (await db.transaction((tx) => lockWallet(tx, keyId)));
}

/** Validates the order-type-specific fields (400 `invalid_request` naming the field). */
export function checkOrderShape(input: OrderInput): void {
  const has = (v: number | null | undefined) => v !== undefined && v !== null;
  if (input.orderType === 'market') {
    if (has(input.limitPrice)) throw new ApiError(400, 'invalid_request', 'a market order takes no limitPrice', { field: 'body.limitPrice' });
    if (has(input.stopPrice)) throw new ApiError(400, 'invalid_request', 'a market order takes no stopPrice', { field: 'body.stopPrice' });
    return;
  }
  if (!has(input.limitPrice)) {
    throw new ApiError(400, 'invalid_request', `a ${input.orderType} order needs limitPrice`, { field: 'body.limitPrice' });
  }
  if (input.orderType === 'stop' && !has(input.stopPrice)) {
    throw new ApiError(400, 'invalid_request', 'a stop order needs stopPrice', { field: 'body.stopPrice' });
  }
  if (input.orderType === 'limit' && has(input.stopPrice)) {
    throw new ApiError(400, 'invalid_request', 'a limit order takes no stopPrice', { field: 'body.stopPrice' });
  }
}

const refuse = (reasons: BlockReason[]) =>
  blocked(400, 'spot_order_blocked', reasons, `order refused: ${reasons.join(', ')}`);

export interface PlacedOrder {
  statusCode: number;
  body: Record<string, unknown>;
  replay: boolean;
}

/**
 * Places an order, idempotent by (key, idempotencyKey): one read of the book, the pure
 * decision (decideSpotOrder), one write of every effect with the idempotency record.
 */
export async function placeSpotOrder(
  db: Db,
  deps: { market: MarketReadsForOrders; nowMs: number },
  keyId: number,
  coin: CoinRef,
  input: OrderInput,
  route: string,
): Promise<PlacedOrder> {
  const result = await runTradeWrite(db, {
    read: { keyId, coinId: coin.coinId },
    idempotency: { idempotencyKey: input.idempotencyKey, route, body: input as unknown as Record<string, unknown> },
    decide: (book) => decideOrderWrite(deps, coin, input, book),
  });
  return { statusCode: result.statusCode, body: result.body, replay: result.replay };
}

type MarketReadsForOrders = Pick<MarketFeed, 'price'>;

function decideOrderWrite(deps: { market: MarketReadsForOrders; nowMs: number }, coin: CoinRef, input: OrderInput, book: BookSnapshot): Decided<null> {
  const mid = usablePrice(deps.market, coin.coinId, deps.nowMs);
  const quantity = orderAmount(input.quantity);
  const limitPrice = input.orderType === 'market' ? null : new Decimal(input.limitPrice!);
  const stopPrice = input.orderType === 'stop' ? new Decimal(input.stopPrice!) : null;
  const decision = decideSpotOrder(
    {
      coin: { coinId: coin.coinId, symbol: coin.symbol, rank: coin.rank },
      side: input.side,
      orderType: input.orderType,
      quantity,
      limitPrice,
      stopPrice,
      idempotencyKey: input.idempotencyKey,
      mid: mid ? new Decimal(mid.priceUsd) : null,
      nowMs: deps.nowMs,
    },
    { cashAvailable: book.wallet.available, holding: book.holding! },
  );
  if (decision.kind === 'refused') throw refuse(decision.blockReasons);
  if (decision.kind === 'fill') {
    const { fill, pnl } = decision;
    const how = input.orderType === 'market' ? 'market' : `marketable ${input.orderType}`;
    // orderId is a market fill's (supplement 1.2); a limit/stop that filled at once names its trade
    // tradeId: as orderId it shared numbers with resting order ids, and a cancel by it hit another order
    const idField = input.orderType === 'market' ? 'orderId' : 'tradeId';
    return {
      effects: decision.effects,
      statusCode: 200,
      idPaths: [{ path: [idField], from: 'trade' }],
      result: null,
      body: {
        message: `${how} ${input.side} of ${toWire(quantity)} ${coin.symbol} filled`,
        [idField]: 0,
        summary: {
          side: input.side,
          quantity: toWire(quantity),
          coinId: coin.coinId,
          ...(limitPrice ? { orderType: input.orderType, limitPrice: priceToWire(limitPrice), marketable: true } : {}),
          ...(stopPrice ? { stopPrice: priceToWire(stopPrice) } : {}),
          executionPrice: priceToWire(fill.executionPrice),
          totalCost: toWire(fill.notional),
          pnl: pnl === null ? null : toWire(pnl),
          feeUsd: toWire(fill.fee),
          slippageUsd: toWire(fill.slippageCost),
          executionModel: fill.model,
        },
      },
    };
  }
  const orderType = input.orderType as 'limit' | 'stop';
  return {
    effects: decision.effects,
    statusCode: 200,
    idPaths: [{ path: ['restingOrderId'], from: 'order' }],
    result: null,
    body: {
      message: `${orderType} ${input.side} of ${toWire(quantity)} ${coin.symbol} resting at ${priceToWire(limitPrice!)}`,
      // Additive: the id to cancel with (also listed by GET /api/agent/orders/open).
      restingOrderId: 0,
      summary: {
        side: input.side,
        quantity: toWire(quantity),
        coinId: coin.coinId,
        orderType,
        limitPrice: priceToWire(limitPrice!),
        ...(stopPrice ? { stopPrice: priceToWire(stopPrice), triggered: decision.triggered } : {}),
        frozenUsd: input.side === 'buy' ? toWire(decision.freeze) : 0,
        frozenCoin: input.side === 'sell' ? toWire(decision.freeze) : 0,
      },
    },
  };
}

/** The trade id a fill's answer names: `orderId` (market) or `tradeId` (a marketable limit/stop). */
export const fillIdOf = (body: Record<string, unknown>): number | undefined => (body.orderId ?? body.tradeId) as number | undefined;

/** A fill's replay (market or marketable limit/stop): the parameters in force then are not retained (supplement 1.2). */
export function asReplay(body: Record<string, unknown>): Record<string, unknown> {
  if (fillIdOf(body) === undefined || typeof body.summary !== 'object' || body.summary === null) return body;
  return {
    ...body,
    summary: {
      ...(body.summary as Record<string, unknown>),
      executionModel: null,
      executionModelStatus: 'historical_parameters_not_retained',
      executionVersion: EXECUTION_VERSION,
    },
  };
}

/**
 * Cancels the key's resting order and releases what it froze. Anything else (filled,
 * cancelled, unknown, another key's) is `alreadyClosed`, and touches nothing.
 */
export async function cancelOrder(db: Db, keyId: number, orderId: number, nowMs: number): Promise<{ ok: true; alreadyClosed?: true }> {
  const result = await runTradeWrite(db, {
    read: { keyId, spotOrderId: orderId },
    decide: (book) => {
      const order = book.spotOrder;
      if (!order || !isResting(order)) return { noWrite: true, statusCode: 200, body: { ok: true, alreadyClosed: true }, result: null };
      return { effects: decideCancel(order, nowMs), statusCode: 200, body: { ok: true }, result: null };
    },
  });
  return result.body as { ok: true; alreadyClosed?: true };
}

/**
 * Fills a resting order (see decideRestingFill for the price) on the owner's book. Returns
 * the trade id, or null when the order no longer rests (cancelled meanwhile).
 */
export async function fillRestingOrder(
  db: Db,
  order: Pick<SpotOrderRow, 'id' | 'keyId' | 'coinId'>,
  nowMs: number,
  price: RestingFillPrice = { kind: 'limit' },
): Promise<number | null> {
  const result = await runTradeWrite(db, {
    read: { keyId: order.keyId, spotOrderId: order.id, coinId: order.coinId },
    decide: (book) => {
      const o = book.spotOrder;
      if (!o || !isResting(o)) return { noWrite: true, statusCode: 200, body: {}, result: null };
      return { effects: decideRestingFill(o, book.holding!, price, nowMs).effects, statusCode: 200, body: {}, result: null };
    },
  });
  return result.ids?.trade ?? null;
}

export interface SpotQuote {
  eligible: boolean;
  blockReasons: BlockReason[];
  coin: { ucid: string; symbol: string; name: string };
  side: Side;
  quantity: number;
  orderType: 'market';
  executionPrice: number | null;
  estimatedCostMusd: number | null;
  estimatedFeeMusd: number | null;
  executionModel: ExecutionModel;
  available: { usdtAvailableMusd: number; coinAvailable: number };
  freshness: Freshness;
  priceTiming: Record<string, unknown>;
  asOf: string;
}

/** Prices an immediate fill against the book; refusals are values. */
export async function quoteSpot(
  db: Db,
  market: MarketFeed,
  keyId: number,
  coin: CoinRef,
  side: Side,
  quantityNumber: number,
  nowMs: number,
): Promise<SpotQuote> {
  const book = await readBook(db, { keyId, coinId: coin.coinId });
  const wallet = book.wallet;
  const holding = book.holding!;
  const price = market.price(coin.coinId);
  const quantity = orderAmount(quantityNumber);
  const blockReasons: BlockReason[] = [];
  let model: ExecutionModel;
  let priced: { executionPrice: number; cost: number; fee: number } | null = null;
  if (!price) {
    blockReasons.push('price_unavailable');
    model = executionModel({ feeBps: SPOT_TAKER_FEE_BPS, spreadBps: spotSpreadBps(coin.rank), slippageBps: 0, fee: new Decimal(0), slippageCost: new Decimal(0) });
  } else {
    const decision = decideMarketOrder(side, new Decimal(price.priceUsd), quantity, coin.rank, wallet.available, holding.available);
    // the order refuses a price past the 120 s stale mark, so the quote does too (still priced from it)
    if (!usablePrice(market, coin.coinId, nowMs)) blockReasons.push('price_unavailable');
    blockReasons.push(...decision.blockReasons);
    model = decision.fill.model;
    priced = { executionPrice: priceToWire(decision.fill.executionPrice), cost: toWire(decision.fill.notional), fee: toWire(decision.fill.fee) };
  }
  const freshness = spotFreshness(price?.asOfMs ?? null, nowMs);
  return {
    eligible: blockReasons.length === 0,
    blockReasons,
    coin: { ucid: coin.coinId, symbol: coin.symbol, name: coin.name },
    side,
    quantity: toWire(quantity),
    orderType: 'market',
    executionPrice: priced?.executionPrice ?? null,
    estimatedCostMusd: priced?.cost ?? null,
    estimatedFeeMusd: priced?.fee ?? null,
    executionModel: model,
    available: { usdtAvailableMusd: toWire(wallet.available), coinAvailable: toWire(holding.available) },
    freshness,
    priceTiming: priceTiming(price, nowMs),
    asOf: new Date(nowMs).toISOString(),
  };
}

/** SpotPriceTiming (supplement 1.0): the feed's tick time is both the row and the source time. */
function priceTiming(price: PriceObservation | null, nowMs: number): Record<string, unknown> {
  if (!price) {
    return { rowWrittenAt: null, sourceObservedAt: null, sourceAgeSeconds: null, writeLagSeconds: null, coverage: 'no_row', basis: 'venue_snapshot_time' };
  }
  const at = new Date(price.asOfMs).toISOString();
  return {
    rowWrittenAt: at,
    sourceObservedAt: at,
    sourceAgeSeconds: Math.max(0, Math.round((nowMs - price.asOfMs) / 1000)),
    writeLagSeconds: 0,
    coverage: 'recorded',
    basis: 'venue_snapshot_time',
  };
}

