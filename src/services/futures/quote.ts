import { addToPosition, MAX_LEVERAGE, MIN_MARGIN_MUSD, openTerms, type FuturesSide } from '../../domain/futures/position-math.js';
import { addBlockReasons, positionState, type AddTarget } from '../../domain/futures/decisions.js';
import { futuresExecutionModel } from '../../domain/execution-model.js';
import type { CoinRef } from '../../domain/coin-ref.js';
import { buildObservation } from '../../domain/observation.js';
import { Decimal, orderAmount, futuresPriceToWire as price, STARTING_CASH_MUSD, toWire } from '../../domain/money.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import { readBook } from '../../storage/book-read-repo.js';
import type { Queryable } from '../../storage/db.js';
import { openPositionPart } from '../../storage/futures-repo.js';
import { readMark } from './mark.js';

export const QUOTE_ENDPOINT = 'POST /api/agent/futures/quote';

/**
 * What opening `margin × leverage` would mean now (supplement 1.4). Read-only: it runs the
 * entry gates an open would (price, existing position, cash) and reports them as values.
 */
export async function quoteFutures(
  db: Queryable,
  market: MarketFeed,
  nowMs: number,
  req: { keyId: number; coin: CoinRef; side: FuturesSide; leverage: number; marginMusd: number; openEnabled: boolean },
) {
  const read = readMark(market, req.coin.coinId, nowMs);
  const leverage = new Decimal(req.leverage);
  const margin = orderAmount(req.marginMusd);
  // An open refused by the server flag (FUTURES_OPEN_ENABLED) is not eligible, whatever the market says.
  const blockReasons: string[] = [...(req.openEnabled ? [] : ['feature_disabled']), ...(read.problem ? [read.problem] : [])];
  const terms = read.mark ? openTerms(req.side, read.mark, leverage, margin) : null;

  // the book and the coin's open position in one read (none from the book cache); a key without a book has the starting cash
  const book = await readBook(db, req.keyId, { position: openPositionPart(req.coin.coinId) });
  const existing = (book?.parts.position ?? null) as AddTarget | null;
  const addRefusals = existing ? addBlockReasons(existing, req.side, leverage, read.mark ?? null, margin) : [];
  blockReasons.push(...addRefusals);
  // an add merges into the open position: the liquidation price that matters is the merged one
  const liquidation =
    existing && read.mark && addRefusals.length === 0
      ? addToPosition(positionState(existing), read.mark, margin).liquidationPrice
      : (terms?.liquidationPrice ?? null);
  const available = book ? book.wallet.available : STARTING_CASH_MUSD;
  if (terms && margin.plus(terms.fee).gt(available)) blockReasons.push('insufficient_usdt_balance');

  const fee = terms?.fee ?? new Decimal(0);
  return {
    eligible: blockReasons.length === 0,
    blockReasons,
    coin: { ucid: req.coin.coinId, symbol: req.coin.symbol, name: req.coin.name },
    side: req.side,
    leverage: req.leverage,
    marginMusd: margin.toNumber(),
    minMargin: MIN_MARGIN_MUSD,
    maxLeverage: MAX_LEVERAGE,
    referenceMark: read.mark ? price(read.mark) : null,
    entryPrice: read.mark ? price(read.mark) : null,
    notionalMusd: toWire(margin.times(leverage)),
    sizeCoin: terms ? toWire(terms.sizeCoin) : null,
    liquidationPrice: liquidation ? price(liquidation) : null,
    maintenanceMarginRate: terms ? terms.maintenanceMarginRate.toNumber() : null,
    executionModel: futuresExecutionModel(fee),
    fill: null,
    funding: null,
    perpetual: null,
    freshness: read.freshness,
    observation: buildObservation({
      endpoint: QUOTE_ENDPOINT,
      source: market.source,
      observedAtMs: nowMs,
      sourceAsOfMs: read.asOfMs,
      freshness: read.freshness,
      inputs: { coinId: req.coin.coinId, side: req.side, leverage: req.leverage, marginMusd: req.marginMusd },
      dataset: { kind: 'mark_price', coinId: req.coin.coinId },
      rowCount: read.mark ? 1 : 0,
    }),
  };
}
