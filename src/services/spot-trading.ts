/**
 * Spot paper trading use cases: quote, market and resting orders, cancel, and the fill of
 * a resting order. Every money move happens inside a transaction that holds the book's lock
 * (lockWallet), as cash postings (postCash) and coin postings (postHolding) with a journal row each.
 */
import type { CoinRef } from '../domain/coin-ref.js';
import { EXECUTION_VERSION, executionModel, SPOT_TAKER_FEE_BPS, spotLimitFill, spotSpreadBps, type ExecutionModel } from '../domain/execution-model.js';
import { SPOT_STALE_AFTER_SECONDS, spotFreshness, type Freshness } from '../domain/freshness.js';
import { Decimal, toWire } from '../domain/money.js';
import { decideMarketOrder, reweightAvgCost, restingFreeze, sellPnl, stopTriggers, type BlockReason, type Side } from '../domain/spot.js';
import { ApiError, blocked } from '../http/errors.js';
import type { MarketFeed, PriceObservation } from '../marketdata/feed.js';
import type { Db, Tx } from '../storage/db.js';
import { findWallet, lockWallet, postCash, type Wallet } from '../storage/books-repo.js';
import { getHolding, postHolding } from '../storage/holdings-repo.js';
import { closeOrder, insertSpotOrder, lockRestingOrder, type SpotOrderRow } from '../storage/spot-orders-repo.js';
import { insertClosedTrade } from '../storage/trades-repo.js';

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
export function usablePrice(market: MarketFeed, coinId: string, nowMs: number): PriceObservation | null {
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

/** Places an order inside runIdempotent's transaction; a refusal throws (and stores nothing). */
export async function placeOrder(
  tx: Tx,
  deps: { market: MarketFeed; nowMs: number },
  keyId: number,
  coin: CoinRef,
  input: OrderInput,
): Promise<Record<string, unknown>> {
  const wallet = await lockWallet(tx, keyId);
  return input.orderType === 'market'
    ? placeMarketOrder(tx, deps, keyId, wallet, coin, input)
    : placeRestingOrder(tx, deps, keyId, wallet, coin, input);
}

async function placeMarketOrder(
  tx: Tx,
  deps: { market: MarketFeed; nowMs: number },
  keyId: number,
  wallet: Wallet,
  coin: CoinRef,
  input: OrderInput,
): Promise<Record<string, unknown>> {
  const price = usablePrice(deps.market, coin.coinId, deps.nowMs);
  if (!price) throw refuse(['price_unavailable']);
  const quantity = new Decimal(input.quantity);
  const holding = await getHolding(tx, wallet.id, coin.coinId);
  const decision = decideMarketOrder(input.side, new Decimal(price.priceUsd), quantity, coin.rank, wallet.available, holding.available);
  if (decision.blockReasons.length > 0) throw refuse(decision.blockReasons);
  const { fill } = decision;
  const pnl = input.side === 'sell' ? sellPnl(holding.avgCostUsd, fill.executionPrice, quantity, fill.fee) : null;
  const tradeId = await insertClosedTrade(tx, {
    keyId,
    walletId: wallet.id,
    venue: 'spot',
    side: input.side,
    coinId: coin.coinId,
    symbol: coin.symbol,
    realizedPnl: pnl,
    closedAtMs: deps.nowMs,
    refType: 'spot_fill',
    detail: {
      orderType: 'market',
      quantity: toWire(quantity),
      executionPrice: toWire(fill.executionPrice),
      midPrice: price.priceUsd,
      notionalMusd: toWire(fill.notional),
      feeMusd: toWire(fill.fee),
      slippageMusd: toWire(fill.slippageCost),
      avgCostUsd: input.side === 'sell' ? toWire(holding.avgCostUsd) : null,
      executionVersion: EXECUTION_VERSION,
    },
  });
  const ref = { refType: 'spot_fill', refId: String(tradeId) };
  if (input.side === 'buy') {
    await postCash(tx, wallet.id, [{ bucket: 'available', amount: fill.notional.plus(fill.fee).negated(), reason: 'spot_buy', ...ref }]);
    await postHolding(tx, wallet.id, {
      coinId: coin.coinId,
      available: quantity,
      avgCostUsd: reweightAvgCost(holding, quantity, fill.executionPrice),
      reason: 'spot_buy',
      atMs: deps.nowMs,
      ...ref,
    });
  } else {
    await postHolding(tx, wallet.id, { coinId: coin.coinId, available: quantity.negated(), reason: 'spot_sell', atMs: deps.nowMs, ...ref });
    await postCash(tx, wallet.id, [{ bucket: 'available', amount: fill.notional.minus(fill.fee), reason: 'spot_sell', ...ref }]);
  }
  return {
    message: `market ${input.side} of ${toWire(quantity)} ${coin.symbol} filled`,
    orderId: tradeId,
    summary: {
      side: input.side,
      quantity: toWire(quantity),
      coinId: coin.coinId,
      executionPrice: toWire(fill.executionPrice),
      totalCost: toWire(fill.notional),
      pnl: pnl === null ? null : toWire(pnl),
      feeUsd: toWire(fill.fee),
      slippageUsd: toWire(fill.slippageCost),
      executionModel: fill.model,
    },
  };
}

async function placeRestingOrder(
  tx: Tx,
  deps: { market: MarketFeed; nowMs: number },
  keyId: number,
  wallet: Wallet,
  coin: CoinRef,
  input: OrderInput,
): Promise<Record<string, unknown>> {
  const orderType = input.orderType as 'limit' | 'stop';
  const quantity = new Decimal(input.quantity);
  const limitPrice = new Decimal(input.limitPrice!);
  const stopPrice = orderType === 'stop' ? new Decimal(input.stopPrice!) : null;
  const freeze = restingFreeze(input.side, limitPrice, quantity);
  if (input.side === 'buy' && wallet.available.lessThan(freeze)) throw refuse(['insufficient_usdt_balance']);
  const holding = input.side === 'sell' ? await getHolding(tx, wallet.id, coin.coinId) : null;
  if (holding && holding.available.lessThan(quantity)) throw refuse(['insufficient_coin_balance']);
  // A stop whose trigger the current fresh mark already satisfies rests as a limit at once.
  const mark = usablePrice(deps.market, coin.coinId, deps.nowMs);
  const triggeredNow = stopPrice !== null && mark !== null && stopTriggers(input.side, stopPrice, { low: mark.priceUsd, high: mark.priceUsd });
  const orderId = await insertSpotOrder(tx, {
    keyId,
    walletId: wallet.id,
    coinId: coin.coinId,
    symbol: coin.symbol,
    side: input.side,
    orderType,
    quantity: quantity.toString(),
    limitPrice: limitPrice.toString(),
    stopPrice: stopPrice?.toString() ?? null,
    status: triggeredNow ? 'triggered' : 'open',
    frozenAmount: freeze.toString(),
    idempotencyKey: input.idempotencyKey,
    atMs: deps.nowMs,
  });
  const ref = { refType: 'spot_order', refId: String(orderId) };
  if (input.side === 'buy') {
    await postCash(tx, wallet.id, [
      { bucket: 'available', amount: freeze.negated(), reason: 'spot_order_freeze', ...ref },
      { bucket: 'frozen', amount: freeze, reason: 'spot_order_freeze', ...ref },
    ]);
  } else {
    await postHolding(tx, wallet.id, {
      coinId: coin.coinId,
      available: quantity.negated(),
      frozen: quantity,
      reason: 'spot_order_freeze',
      atMs: deps.nowMs,
      ...ref,
    });
  }
  return {
    message: `${orderType} ${input.side} of ${toWire(quantity)} ${coin.symbol} resting at ${toWire(limitPrice)}`,
    // Additive: the id to cancel with (also listed by GET /api/agent/orders/open).
    restingOrderId: orderId,
    summary: {
      side: input.side,
      quantity: toWire(quantity),
      coinId: coin.coinId,
      orderType,
      limitPrice: toWire(limitPrice),
      ...(stopPrice ? { stopPrice: toWire(stopPrice), triggered: triggeredNow } : {}),
      frozenUsd: input.side === 'buy' ? toWire(freeze) : 0,
      frozenCoin: input.side === 'sell' ? toWire(freeze) : 0,
    },
  };
}

/** A market fill's replay: the parameters in force then are not retained (supplement 1.2). */
export function asReplay(body: Record<string, unknown>): Record<string, unknown> {
  if (body.orderId === undefined || typeof body.summary !== 'object' || body.summary === null) return body;
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
  const closed = { ok: true as const, alreadyClosed: true as const };
  if (!(await findWallet(db, keyId))) return closed;
  return db.transaction(async (tx) => {
    const wallet = await lockWallet(tx, keyId);
    const order = await lockRestingOrder(tx, keyId, orderId);
    if (!order) return closed;
    await releaseFreeze(tx, wallet.id, order, nowMs);
    await closeOrder(tx, order.id, 'cancelled', nowMs);
    return { ok: true as const };
  });
}

async function releaseFreeze(tx: Tx, walletId: number, order: SpotOrderRow, nowMs: number): Promise<void> {
  const amount = new Decimal(order.frozenAmount);
  const ref = { refType: 'spot_order', refId: String(order.id) };
  if (order.side === 'buy') {
    await postCash(tx, walletId, [
      { bucket: 'frozen', amount: amount.negated(), reason: 'spot_order_cancel', ...ref },
      { bucket: 'available', amount, reason: 'spot_order_cancel', ...ref },
    ]);
  } else {
    await postHolding(tx, walletId, { coinId: order.coinId, frozen: amount.negated(), available: amount, reason: 'spot_order_cancel', atMs: nowMs, ...ref });
  }
}

/**
 * Fills a resting order at its limit price (fee only), moving its frozen funds: a buy's
 * frozen cash pays notional + fee and the coins arrive; a sell's frozen coins leave and the
 * proceeds less fee arrive, realizing PnL on the average cost. Returns the trade id, or null
 * when the order no longer rests (cancelled meanwhile).
 */
export async function fillRestingOrder(db: Db, order: Pick<SpotOrderRow, 'id' | 'keyId'>, nowMs: number): Promise<number | null> {
  return db.transaction(async (tx) => {
    const wallet = await lockWallet(tx, order.keyId);
    const o = await lockRestingOrder(tx, order.keyId, order.id);
    if (!o) return null;
    const quantity = new Decimal(o.quantity);
    const limitPrice = new Decimal(o.limitPrice);
    const frozen = new Decimal(o.frozenAmount);
    const { notional, fee } = spotLimitFill(limitPrice, quantity);
    const holding = await getHolding(tx, wallet.id, o.coinId);
    const pnl = o.side === 'sell' ? sellPnl(holding.avgCostUsd, limitPrice, quantity, fee) : null;
    const tradeId = await insertClosedTrade(tx, {
      keyId: o.keyId,
      walletId: wallet.id,
      venue: 'spot',
      side: o.side,
      coinId: o.coinId,
      symbol: o.symbol,
      realizedPnl: pnl,
      closedAtMs: nowMs,
      refType: 'spot_order',
      refId: String(o.id),
      detail: {
        orderType: o.orderType,
        orderId: o.id,
        quantity: toWire(quantity),
        executionPrice: toWire(limitPrice),
        limitPrice: toWire(limitPrice),
        stopPrice: o.stopPrice === null ? null : toWire(o.stopPrice),
        notionalMusd: toWire(notional),
        feeMusd: toWire(fee),
        slippageMusd: 0,
        avgCostUsd: o.side === 'sell' ? toWire(holding.avgCostUsd) : null,
        executionVersion: EXECUTION_VERSION,
      },
    });
    const ref = { refType: 'spot_fill', refId: String(tradeId) };
    if (o.side === 'buy') {
      const cost = notional.plus(fee);
      await postCash(tx, wallet.id, [
        { bucket: 'frozen', amount: frozen.negated(), reason: 'spot_order_fill', ...ref },
        // The freeze was sized for exactly this fill; anything left over goes back.
        ...(frozen.greaterThan(cost) ? [{ bucket: 'available' as const, amount: frozen.minus(cost), reason: 'spot_order_fill', ...ref }] : []),
      ]);
      await postHolding(tx, wallet.id, {
        coinId: o.coinId,
        available: quantity,
        avgCostUsd: reweightAvgCost(holding, quantity, limitPrice),
        reason: 'spot_order_fill',
        atMs: nowMs,
        ...ref,
      });
    } else {
      await postHolding(tx, wallet.id, { coinId: o.coinId, frozen: quantity.negated(), reason: 'spot_order_fill', atMs: nowMs, ...ref });
      await postCash(tx, wallet.id, [{ bucket: 'available', amount: notional.minus(fee), reason: 'spot_order_fill', ...ref }]);
    }
    await closeOrder(tx, o.id, 'filled', nowMs, tradeId);
    return tradeId;
  });
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
  const wallet = await ensureWallet(db, keyId);
  const holding = await getHolding(db, wallet.id, coin.coinId);
  const price = market.price(coin.coinId);
  const quantity = new Decimal(quantityNumber);
  const blockReasons: BlockReason[] = [];
  let model: ExecutionModel;
  let priced: { executionPrice: number; cost: number; fee: number } | null = null;
  if (!price) {
    blockReasons.push('price_unavailable');
    model = executionModel({ feeBps: SPOT_TAKER_FEE_BPS, spreadBps: spotSpreadBps(coin.rank), slippageBps: 0, fee: new Decimal(0), slippageCost: new Decimal(0) });
  } else {
    const decision = decideMarketOrder(side, new Decimal(price.priceUsd), quantity, coin.rank, wallet.available, holding.available);
    blockReasons.push(...decision.blockReasons);
    model = decision.fill.model;
    priced = { executionPrice: toWire(decision.fill.executionPrice), cost: toWire(decision.fill.notional), fee: toWire(decision.fill.fee) };
  }
  const freshness = spotFreshness(price?.asOfMs ?? null, nowMs);
  return {
    eligible: blockReasons.length === 0,
    blockReasons,
    coin: { ucid: coin.coinId, symbol: coin.symbol, name: coin.name },
    side,
    quantity: quantityNumber,
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

