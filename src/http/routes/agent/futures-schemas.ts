import { Type } from 'typebox';
import { MAX_LEVERAGE, MIN_LEVERAGE, MIN_MARGIN_MUSD } from '../../../domain/futures/position-math.js';
import { ApiError } from '../../errors.js';
import { isLockContention } from '../../../storage/futures-repo.js';
import { AgentTrace, DateTime, ErrorBody, IdempotencyKey, Nullable, StringEnum } from '../../schemas.js';
import { Freshness } from '../../responses/common.js';

export const FuturesSideSchema = StringEnum(['long', 'short'] as const);
export const Leverage = Type.Number({ minimum: MIN_LEVERAGE, maximum: MAX_LEVERAGE, description: '1..20' });
export const Margin = Type.Number({ minimum: MIN_MARGIN_MUSD, maximum: 1e12, description: 'isolated margin in mUSD, ≥ 10' });
// One JSON-Schema type list, not anyOf: with type coercion on, anyOf [number, null] would read 0 as null (a clear).
export const TriggerPrice = Type.Unsafe<number | null>({
  type: ['number', 'null'],
  exclusiveMinimum: 0,
  maximum: 1e15,
  description: 'a positive price sets, null clears, absent keeps',
});
export const CoinId = Type.String({ minLength: 1, maxLength: 64, description: 'UCID, not a ticker' });
export const PositionId = Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 });
export { AgentTrace, IdempotencyKey };

const Num = Type.Number();
const NullNum = Nullable(Type.Number());

/** The FuturesPosition record (supplement 2.4); funding fields are omitted (funding not modeled). */
export const FuturesPositionSchema = Type.Object(
  {
    id: Type.Integer(),
    status: StringEnum(['open', 'closed', 'liquidated'] as const),
    coin: Type.Object({ ucid: Type.String(), symbol: Type.String(), name: Type.String() }),
    side: FuturesSideSchema,
    leverage: Num,
    entryPrice: Num,
    marginMusd: Num,
    notionalMusd: Num,
    sizeCoin: Num,
    maintenanceMarginRate: Num,
    liquidationPrice: Num,
    freshnessAtEntry: Nullable(Freshness),
    stopLossPrice: NullNum,
    takeProfitPrice: NullNum,
    exitPrice: NullNum,
    exitReason: Nullable(StringEnum(['user_close', 'liquidation', 'stop_loss', 'take_profit'] as const)),
    realizedPnlMusd: Nullable(Type.Number({ description: 'net of fees, cumulative over partial closes' })),
    fillModel: Type.Null(),
    openedAt: Nullable(DateTime),
    closedAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
    markPrice: NullNum,
    unrealizedPnlMusd: NullNum,
    liquidationDistancePct: NullNum,
    atLiquidation: Nullable(Type.Boolean()),
  },
);

export const PositionEnvelope = Type.Object(
  { position: FuturesPositionSchema, idempotentReplay: Type.Optional(Type.Boolean()) },
);

export const futuresErrors = { 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 503: ErrorBody };

/** The coin of the position an answer carries (its ledger instrument); undefined for a refusal. */
export function positionCoinOf(body: unknown): string | undefined {
  const coinId = (body as { position?: { coin?: { ucid?: unknown } } } | null)?.position?.coin?.ucid;
  return typeof coinId === 'string' ? coinId : undefined;
}

/** A write that lost a row lock to another writer (e.g. the risk job) answers 503: retry with the same key. */
export async function retryOnContention<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isLockContention(error)) {
      throw new ApiError(503, 'contention_retry', 'the position is being updated by another writer; retry with the same idempotencyKey', {}, { 'retry-after': '1' });
    }
    throw error;
  }
}
