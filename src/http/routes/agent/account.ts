import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Decimal, CASH_COIN_ID, STARTING_CASH_MUSD, cashTotal, priceToWire, roundMoney, toWire } from '../../../domain/money.js';
import { progression } from '../../../domain/progression.js';
import { ensureWallet } from '../../../services/spot-trading.js';
import { readFundedBook, readValuedBook } from '../../../services/equity.js';
import { accountTotalsPart, holdingPart, noPart, readBook, restingOrdersPart, toAccountTotals, windowStartsPart, type RestingOrderPart } from '../../../storage/book-read-repo.js';
import { listKeyOrders, type SpotOrderRow } from '../../../storage/spot-orders-repo.js';
import { deltaPollingAsOf, pollingAsOf } from '../../../domain/delta-polling.js';
import type { AppContext } from '../../context.js';
import { ApiError, invalidRequest } from '../../errors.js';
import { agentErrors, DateTime, ErrorBody, FIAT_DESCRIPTION } from '../../schemas.js';
import { OpenOrdersResponse, PortfolioResponse, WalletResponse } from '../../responses/account.js';

const priceOrNull = (usd: number | undefined): number | null => (usd === undefined ? null : priceToWire(usd));

const security: { [label: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const readRoute = { scope: 'read' as const, ledger: { eventType: 'read' as const } };
const DAY_MS = 86_400_000;

function orderView(o: SpotOrderRow) {
  return {
    id: o.id,
    side: o.side,
    orderType: o.orderType,
    coinId: o.coinId,
    symbol: o.symbol,
    limitPrice: priceToWire(o.limitPrice),
    stopPrice: o.stopPrice === null ? null : priceToWire(o.stopPrice),
    quantity: toWire(o.quantity),
    quantityFilled: o.status === 'filled' ? toWire(o.quantity) : 0,
    triggered: o.orderType === 'stop' ? o.status === 'triggered' || o.triggeredAt !== null : null,
    status: o.status,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/agent/wallet',
      {
        config: readRoute,
        schema: {
          summary: 'USDT cash with its frozen partitions, plus one coin asset when coinId is given',
          tags: ['agent'],
          security,
          querystring: Type.Object({ coinId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
          response: { 200: WalletResponse, 404: ErrorBody, ...agentErrors },
        },
      },
      async (request) => {
        const { coinId } = request.query;
        if (coinId !== undefined && coinId !== CASH_COIN_ID && !ctx.market.coin(coinId)) {
          throw new ApiError(404, 'coin_not_found', `no coin with coinId ${coinId}`);
        }
        const db = ctx.database.db;
        const keyId = request.agentKey!.keyId;
        const parts = { coin: coinId !== undefined && coinId !== CASH_COIN_ID ? holdingPart(coinId) : noPart };
        const book = await readFundedBook(db, keyId, () => readBook(db, keyId, parts));
        const wallet = book.wallet;
        const usdt = {
          coinId: CASH_COIN_ID,
          available: toWire(wallet.available),
          frozen: toWire(wallet.frozen),
          frozenPm: toWire(wallet.frozenPm),
          frozenFutures: toWire(wallet.frozenFutures),
          avgCostUsd: 1,
        };
        let coin = null;
        if (coinId !== undefined && coinId !== CASH_COIN_ID) {
          const h = (book.parts.coin as { available: string; frozen: string; avgCostUsd: string } | null) ?? { available: '0', frozen: '0', avgCostUsd: '0' };
          const held = new Decimal(h.available).plus(h.frozen);
          coin = { coinId, available: toWire(h.available), frozen: toWire(h.frozen), avgCostUsd: held.isZero() ? null : priceToWire(h.avgCostUsd) };
        }
        return { walletId: wallet.id, usdt, coin };
      },
    );

    app.get(
      '/api/agent/portfolio',
      {
        config: readRoute,
        schema: {
          summary: 'Equity (USD), cash partitions, period PnL, open orders and progression',
          tags: ['agent'],
          security,
          querystring: Type.Object({
            fiat: Type.String({ pattern: '^[A-Za-z]{3}$', default: 'USD', description: `display only; equity stays USD. ${FIAT_DESCRIPTION}` }),
            locale: Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$', maxLength: 35, default: 'en' }),
          }),
          response: { 200: PortfolioResponse, 404: ErrorBody, ...agentErrors },
        },
      },
      async (request) => {
        const keyId = request.agentKey!.keyId;
        const db = ctx.database.db;
        const nowMs = ctx.clock.now();
        const fiat = request.query.fiat.toUpperCase();
        // a currency the market data has no rate for is refused, as candles refuse it
        if (ctx.marketReads && ctx.marketReads.fiatRate(fiat) === null) throw invalidRequest('query.fiat', `unsupported fiat currency ${fiat}`);
        const windows = [
          ['24h', DAY_MS],
          ['7d', 7 * DAY_MS],
          ['30d', 30 * DAY_MS],
        ] as const;
        const parts = {
          orders: restingOrdersPart(200),
          totals: accountTotalsPart,
          // to the minute: reads within one minute share the cached part
          starts: windowStartsPart(windows.map(([, ms]) => new Date(Math.floor((nowMs - ms) / 60_000) * 60_000).toISOString())),
        };
        const book = await readFundedBook(db, keyId, () => readValuedBook(db, ctx.market, keyId, parts));
        const { wallet, equity } = book;
        const orders = book.parts.orders as RestingOrderPart[];
        const starts = book.parts.starts as (string | null)[];
        const pnl = {} as Record<`${(typeof windows)[number][0]}${'Usd' | 'Pct'}` | 'allTimeUsd' | 'allTimePct', number>;
        windows.forEach(([name], i) => {
          // Window start = the equity last recorded at or before now − window (24 h: hourly, within
          // the hour; 7 d / 30 d: the last daily value before, within a day); a book without one
          // (younger than the window) starts at 50,000.
          const start = starts[i] !== null ? new Decimal(starts[i]!) : STARTING_CASH_MUSD;
          const change = equity.totalUsd.minus(start);
          pnl[`${name}Usd`] = toWire(change);
          pnl[`${name}Pct`] = start.isZero() ? 0 : toWire(change.div(start));
        });
        const allTime = equity.totalUsd.minus(STARTING_CASH_MUSD);
        pnl.allTimeUsd = toWire(allTime);
        pnl.allTimePct = toWire(allTime.div(STARTING_CASH_MUSD));
        // The contract's identities hold on the wire: cashTotal is the sum of the buckets as sent,
        // totalUsd the sum of its parts as sent (each rounded alone, they could miss by 1e-8).
        const buckets = {
          available: roundMoney(wallet.available),
          frozen: roundMoney(wallet.frozen),
          frozenPm: roundMoney(wallet.frozenPm),
          frozenFutures: roundMoney(wallet.frozenFutures),
        };
        const cash = cashTotal(buckets);
        const holdingsUsd = roundMoney(equity.holdingsUsd);
        const otherVenuesUsd = roundMoney(equity.adjustmentsUsd);
        return {
          walletId: wallet.id,
          equity: {
            totalUsd: toWire(cash.plus(holdingsUsd).plus(otherVenuesUsd)),
            cashTotal: toWire(cash),
            available: toWire(buckets.available),
            frozen: toWire(buckets.frozen),
            frozenPm: toWire(buckets.frozenPm),
            frozenFutures: toWire(buckets.frozenFutures),
            spotHoldingsUsd: toWire(holdingsUsd),
            otherVenuesUsd: toWire(otherVenuesUsd),
          },
          pnl,
          openOrders: orders.map((o) => ({
            id: o.id,
            side: o.side,
            orderType: o.orderType,
            coinId: o.coinId,
            symbol: o.symbol,
            price: priceToWire(o.limitPrice),
            stopPrice: o.stopPrice === null ? null : priceToWire(o.stopPrice),
            quantity: toWire(o.quantity),
            quantityFilled: 0,
            status: o.status,
            currentPriceUsd: priceOrNull(ctx.market.price(o.coinId)?.priceUsd),
          })),
          progression: progression(toAccountTotals(book.parts.totals)),
          fiat,
          locale: request.query.locale,
          asOf: new Date(nowMs).toISOString(),
        };
      },
    );

    app.get(
      '/api/agent/orders/open',
      {
        config: { ...readRoute, ledger: { eventType: 'read' as const, venue: 'spot' } },
        schema: {
          summary: 'Resting spot orders (open, triggered); with updatedSince, every order changed since (closed ones included)',
          tags: ['agent'],
          security,
          querystring: Type.Object({
            coinId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 100 }),
            updatedSince: Type.Optional(DateTime),
          }),
          response: { 200: OpenOrdersResponse, 404: ErrorBody, ...agentErrors },
        },
      },
      async (request) => {
        const { coinId, limit, updatedSince } = request.query;
        const keyId = request.agentKey!.keyId;
        const nowMs = ctx.clock.now();
        const wallet = await ensureWallet(ctx.database.db, keyId);
        const rows = await listKeyOrders(ctx.database.db, keyId, {
          coinId,
          limit,
          updatedSince: updatedSince !== undefined ? new Date(updatedSince) : undefined,
        });
        return {
          walletId: wallet.id,
          // Seed 2.11 / reference B11: the coin filter applied, null when listing all coins.
          coinId: coinId ?? null,
          count: rows.length,
          rows: rows.map(orderView),
          updatedSince: updatedSince !== undefined ? new Date(updatedSince).toISOString() : null,
          asOf: updatedSince !== undefined ? deltaPollingAsOf(nowMs, rows.map((o) => o.updatedAt.getTime())) : pollingAsOf(nowMs),
        };
      },
    );
  };
}

