/**
 * Venue adjustments to a book's equity, beyond cash and spot holdings at mark
 * (supplement 2.1): each venue that holds value outside the cash total adds one function
 * here. Futures: Σ unrealized PnL (the margin already sits in cash `frozenFutures`). PM:
 * Σ (mark value − stake) (the stake already sits in cash `frozenPm`).
 * Used by GET /api/agent/portfolio and the daily equity-snapshot job alike.
 */
import type { Decimal } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import type { Queryable } from '../storage/db.js';
import { futuresEquityAdjustment } from './futures-equity.js';
import { pmEquityAdjustment } from './pm-trading-equity.js';

export type EquityAdjustment = (db: Queryable, keyId: number, market: MarketFeed, nowMs: number) => Promise<Decimal>;

export const equityAdjustments: EquityAdjustment[] = [futuresEquityAdjustment, pmEquityAdjustment];
