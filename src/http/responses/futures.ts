/** Response schema of the futures quote (positions: FuturesPositionSchema in routes/agent/futures-schemas.ts). */
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../schemas.js';
import { Bool, Freshness, Num, Observation, Str } from './common.js';
import { ExecutionModel } from './spot.js';

const NotModeled = Type.Null({ description: 'not modeled (always null)' });

export const FuturesQuoteResponse = Type.Object({
  eligible: Bool(),
  blockReasons: Type.Array(Str({ description: 'e.g. price_unavailable, stale_price, opposite_side_open, leverage_mismatch, insufficient_usdt_balance' })),
  coin: Type.Object({ ucid: Str(), symbol: Str(), name: Str() }),
  side: StringEnum(['long', 'short'] as const),
  leverage: Num(),
  marginMusd: Num(),
  minMargin: Num(),
  maxLeverage: Num(),
  referenceMark: Nullable(Num()),
  entryPrice: Nullable(Num()),
  notionalMusd: Num(),
  sizeCoin: Nullable(Num()),
  liquidationPrice: Nullable(Num()),
  maintenanceMarginRate: Nullable(Num()),
  executionModel: ExecutionModel,
  fill: NotModeled,
  funding: NotModeled,
  perpetual: NotModeled,
  freshness: Freshness,
  observation: Observation,
});
