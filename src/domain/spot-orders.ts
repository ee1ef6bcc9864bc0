/**
 * Spot order decisions, pure (issue 11): from the book as read and the price seen now,
 * what a market, limit or stop-limit order, a cancel or a resting fill does: refusals as
 * block reasons, or the effects to write (trade row, postings, order row).
 *
 * Marketable limits (issue 12 item 8): a limit buy at or above the executable buy price of a
 * market order now (a sell at or below the executable sell price), and a stop-limit whose
 * stop the price already reaches in that state, execute at once as a taker, at the market
 * order's execution price (spread, slippage, fee), which is never worse than the limit. Only
 * a non-marketable limit rests; it later fills at its limit price with the fee only.
 */
import { EXECUTION_VERSION, MIN_TRADE_NOTIONAL_MUSD, spotLimitFill, spotMarketFill, type SpotFill } from './execution-model.js';
import { Decimal, priceToWire, toWire } from './money.js';
import { decideMarketOrder, reweightAvgCost, restingFreeze, sellPnl, stopTriggers, type BlockReason, type Holding, type Side } from './spot.js';
import type { CashPosting, CoinPosting, TradeEffects } from './trade-effects.js';

export interface SpotCoin {
  coinId: string;
  symbol: string;
  rank: number | null;
}

export interface SpotOrderRequest {
  coin: SpotCoin;
  side: Side;
  orderType: 'market' | 'limit' | 'stop';
  quantity: Decimal;
  limitPrice: Decimal | null;
  stopPrice: Decimal | null;
  idempotencyKey: string;
  /** The fresh mid (≤ 120 s), or null when there is none. */
  mid: Decimal | null;
  nowMs: number;
}

export interface SpotBook {
  cashAvailable: Decimal;
  holding: Holding;
}

/** A taker fill now: a market order, or a marketable limit / triggered stop-limit. */
export interface TakerFill {
  kind: 'fill';
  fill: SpotFill;
  mid: Decimal;
  pnl: Decimal | null;
  effects: TradeEffects;
}

export interface Resting {
  kind: 'rest';
  freeze: Decimal;
  triggered: boolean;
  effects: TradeEffects;
}

export type SpotOrderDecision = { kind: 'refused'; blockReasons: BlockReason[] } | TakerFill | Resting;

/** Would a limit at `limitPrice` trade now against the market order's execution price? */
export function isMarketable(side: Side, limitPrice: Decimal, executionPrice: Decimal): boolean {
  return side === 'buy' ? limitPrice.greaterThanOrEqualTo(executionPrice) : limitPrice.lessThanOrEqualTo(executionPrice);
}

export function decideSpotOrder(req: SpotOrderRequest, book: SpotBook): SpotOrderDecision {
  const { side, quantity, mid } = req;
  // Every order type needs a usable (fresh) price (supplement 3.4, 3.6): whether a limit is
  // marketable, or a stop already triggered, is decided against it; a limit rested without one
  // would later fill at its limit however far the market had moved.
  if (mid === null) return { kind: 'refused', blockReasons: ['price_unavailable'] };
  if (req.orderType === 'market') return takerOrder(req, book, mid);
  const limitPrice = req.limitPrice!;
  const triggered = req.orderType === 'stop' && stopTriggers(side, req.stopPrice!, { low: mid.toNumber(), high: mid.toNumber() });
  const live = req.orderType === 'limit' || triggered;
  if (live && isMarketable(side, limitPrice, spotMarketFill(side, mid, quantity, req.coin.rank).executionPrice)) {
    return takerOrder(req, book, mid);
  }
  if (limitPrice.times(quantity).lessThan(MIN_TRADE_NOTIONAL_MUSD)) return { kind: 'refused', blockReasons: ['below_min_notional'] };
  const freeze = restingFreeze(side, limitPrice, quantity);
  if (side === 'buy' && book.cashAvailable.lessThan(freeze)) return { kind: 'refused', blockReasons: ['insufficient_usdt_balance'] };
  if (side === 'sell' && book.holding.available.lessThan(quantity)) return { kind: 'refused', blockReasons: ['insufficient_coin_balance'] };
  const ref = { refType: 'spot_order', refId: { created: 'order' as const } };
  return {
    kind: 'rest',
    freeze,
    triggered,
    effects: {
      newOrder: {
        coinId: req.coin.coinId,
        symbol: req.coin.symbol,
        side,
        orderType: req.orderType as 'limit' | 'stop',
        quantity,
        limitPrice,
        stopPrice: req.stopPrice,
        status: triggered ? 'triggered' : 'open',
        frozenAmount: freeze,
        idempotencyKey: req.idempotencyKey,
        atMs: req.nowMs,
      },
      ...(side === 'buy'
        ? {
            cash: [
              { bucket: 'available', amount: freeze.negated(), reason: 'spot_order_freeze', ...ref },
              { bucket: 'frozen', amount: freeze, reason: 'spot_order_freeze', ...ref },
            ],
          }
        : { coins: [{ coinId: req.coin.coinId, available: quantity.negated(), frozen: quantity, reason: 'spot_order_freeze', atMs: req.nowMs, ...ref }] }),
    },
  };
}

function takerOrder(req: SpotOrderRequest, book: SpotBook, mid: Decimal): SpotOrderDecision {
  const { side, quantity } = req;
  // The quote's decision: an order refuses exactly what its quote reports.
  const { fill, blockReasons } = decideMarketOrder(side, mid, quantity, req.coin.rank, book.cashAvailable, book.holding.available);
  if (blockReasons.length > 0) return { kind: 'refused', blockReasons };
  const pnl = side === 'sell' ? sellPnl(book.holding.avgCostUsd, fill.executionPrice, quantity, fill.fee) : null;
  const ref = { refType: 'spot_fill', refId: { created: 'trade' as const } };
  const reason = side === 'buy' ? 'spot_buy' : 'spot_sell';
  const cash: CashPosting[] =
    side === 'buy'
      ? [{ bucket: 'available', amount: fill.notional.plus(fill.fee).negated(), reason, ...ref }]
      : [{ bucket: 'available', amount: fill.notional.minus(fill.fee), reason, ...ref }];
  const coins: CoinPosting[] = [
    side === 'buy'
      ? { coinId: req.coin.coinId, available: quantity, avgCostUsd: reweightAvgCost(book.holding, quantity, fill.notional.plus(fill.fee)), reason, atMs: req.nowMs, ...ref }
      : { coinId: req.coin.coinId, available: quantity.negated(), reason, atMs: req.nowMs, ...ref },
  ];
  return {
    kind: 'fill',
    fill,
    mid,
    pnl,
    effects: {
      trade: {
        venue: 'spot',
        side,
        coinId: req.coin.coinId,
        symbol: req.coin.symbol,
        realizedPnl: pnl,
        closedAtMs: req.nowMs,
        refType: 'spot_fill',
        detail: {
          orderType: req.orderType,
          quantity: toWire(quantity),
          executionPrice: priceToWire(fill.executionPrice),
          midPrice: priceToWire(mid),
          ...(req.limitPrice ? { limitPrice: priceToWire(req.limitPrice), marketable: true } : {}),
          ...(req.stopPrice ? { stopPrice: priceToWire(req.stopPrice) } : {}),
          notionalMusd: toWire(fill.notional),
          feeMusd: toWire(fill.fee),
          slippageMusd: toWire(fill.slippageCost),
          avgCostUsd: side === 'sell' ? priceToWire(book.holding.avgCostUsd) : null,
          executionVersion: EXECUTION_VERSION,
        },
      },
      cash,
      coins,
    },
  };
}

/** A resting order as stored (prices and amounts as decimal strings). */
export interface RestingOrder {
  id: number;
  coinId: string;
  symbol: string | null;
  side: Side;
  orderType: 'limit' | 'stop';
  status: string;
  quantity: string;
  limitPrice: string;
  stopPrice: string | null;
  frozenAmount: string;
}

export const isResting = (order: Pick<RestingOrder, 'status'>): boolean => order.status === 'open' || order.status === 'triggered';

/** Cancelling a resting order: release what it froze. */
export function decideCancel(order: RestingOrder, nowMs: number): TradeEffects {
  const amount = new Decimal(order.frozenAmount);
  const ref = { refType: 'spot_order', refId: String(order.id) };
  return {
    orderChange: { id: order.id, status: 'cancelled', atMs: nowMs },
    ...(order.side === 'buy'
      ? {
          cash: [
            { bucket: 'frozen', amount: amount.negated(), reason: 'spot_order_cancel', ...ref },
            { bucket: 'available', amount, reason: 'spot_order_cancel', ...ref },
          ],
        }
      : { coins: [{ coinId: order.coinId, frozen: amount.negated(), available: amount, reason: 'spot_order_cancel', atMs: nowMs, ...ref }] }),
  };
}

/**
 * How a resting order fills: at its limit price with the fee only (the market traded through
 * it while it rested), or as a taker at the market execution price (a stop-limit that
 * triggers while its limit is marketable), never worse than the limit.
 */
export type RestingFillPrice = { kind: 'limit' } | { kind: 'taker'; mid: Decimal; rank: number | null };

export interface RestingFill {
  executionPrice: Decimal;
  notional: Decimal;
  fee: Decimal;
  slippageCost: Decimal;
  pnl: Decimal | null;
  effects: TradeEffects;
}

/** Fills a resting order out of what it froze: a buy's frozen cash pays (any rest returns), a sell's frozen coins leave. */
export function decideRestingFill(order: RestingOrder, holding: Holding, price: RestingFillPrice, nowMs: number): RestingFill {
  const quantity = new Decimal(order.quantity);
  const limitPrice = new Decimal(order.limitPrice);
  const frozen = new Decimal(order.frozenAmount);
  const taker = price.kind === 'taker' ? spotMarketFill(order.side, price.mid, quantity, price.rank) : null;
  const { executionPrice, notional, fee, slippageCost } = taker ?? { executionPrice: limitPrice, ...spotLimitFill(limitPrice, quantity), slippageCost: new Decimal(0) };
  const pnl = order.side === 'sell' ? sellPnl(holding.avgCostUsd, executionPrice, quantity, fee) : null;
  const ref = { refType: 'spot_fill', refId: { created: 'trade' as const } };
  const reason = 'spot_order_fill';
  let cash: CashPosting[];
  let coins: CoinPosting[];
  if (order.side === 'buy') {
    const cost = notional.plus(fee);
    cash = [
      { bucket: 'frozen', amount: frozen.negated(), reason, ...ref },
      // the freeze was sized for a fill at the limit; what a better price saves goes back
      ...(frozen.greaterThan(cost) ? [{ bucket: 'available' as const, amount: frozen.minus(cost), reason, ...ref }] : []),
    ];
    coins = [{ coinId: order.coinId, available: quantity, avgCostUsd: reweightAvgCost(holding, quantity, cost), reason, atMs: nowMs, ...ref }];
  } else {
    cash = [{ bucket: 'available', amount: notional.minus(fee), reason, ...ref }];
    coins = [{ coinId: order.coinId, frozen: quantity.negated(), reason, atMs: nowMs, ...ref }];
  }
  return {
    executionPrice,
    notional,
    fee,
    slippageCost,
    pnl,
    effects: {
      trade: {
        venue: 'spot',
        side: order.side,
        coinId: order.coinId,
        symbol: order.symbol,
        realizedPnl: pnl,
        closedAtMs: nowMs,
        refType: 'spot_order',
        refId: String(order.id),
        detail: {
          orderType: order.orderType,
          orderId: order.id,
          quantity: toWire(quantity),
          executionPrice: priceToWire(executionPrice),
          limitPrice: priceToWire(limitPrice),
          stopPrice: order.stopPrice === null ? null : priceToWire(order.stopPrice),
          ...(taker && price.kind === 'taker' ? { midPrice: priceToWire(price.mid), marketable: true } : {}),
          notionalMusd: toWire(notional),
          feeMusd: toWire(fee),
          slippageMusd: toWire(slippageCost),
          avgCostUsd: order.side === 'sell' ? priceToWire(holding.avgCostUsd) : null,
          executionVersion: EXECUTION_VERSION,
        },
      },
      cash,
      coins,
      orderChange: { id: order.id, status: 'filled', atMs: nowMs, filledByTrade: true },
    },
  };
}
