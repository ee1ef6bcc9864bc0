/** Response building blocks shared by several route groups (every route's response schema is complete). */
import { Type } from 'typebox';
import { DateTime, Nullable, OpenObject, StringEnum } from '../schemas.js';

/** A number that may be fractional (money, prices, ratios); Integer is used only where a value is always whole. */
export const Num = (options: Record<string, unknown> = {}) => Type.Number(options);
export const Int = (options: Record<string, unknown> = {}) => Type.Integer(options);
export const Str = (options: Record<string, unknown> = {}) => Type.String(options);
export const Bool = () => Type.Boolean();

/** Freshness of the data behind a read (spot/futures carry ageSeconds, PM ageMinutes and basis). */
export const Freshness = Type.Object({
  asOf: Nullable(DateTime),
  ageSeconds: Type.Optional(Nullable(Num())),
  ageMinutes: Type.Optional(Nullable(Num())),
  status: StringEnum(['fresh', 'lagging', 'stale', 'unknown'] as const),
  basis: Type.Optional(Nullable(StringEnum(['latest_snapshot', 'source_update', 'processed', 'event_update', 'unknown'] as const))),
});

/** What a read observed, so an agent can cite it (contract supplement 1.0); inputs and dataset are free-form maps. */
export const Observation = Type.Object({
  schema: Type.Literal('svc.agentObservation.v1'),
  endpoint: Str(),
  source: Str(),
  observedAt: DateTime,
  sourceAsOf: Nullable(DateTime),
  freshness: Nullable(Freshness),
  inputs: OpenObject('the request inputs the observation covers'),
  dataset: OpenObject('what was read (free-form)'),
  rowCount: Nullable(Int()),
  hash: Str({ description: 'first 16 hex of SHA-256 over the canonical JSON of the other fields' }),
});

const Tier = ['high', 'medium', 'low', 'unknown'] as const;
export const DecisionSupport = Type.Object({
  qualityScore: Num(),
  qualityTier: StringEnum(['high', 'medium', 'low'] as const),
  spreadTier: StringEnum(['tight', 'moderate', 'wide', 'unknown'] as const),
  liquidityTier: StringEnum(Tier),
  volumeTier: StringEnum(Tier),
  flags: Type.Object({ thinMarket: Bool(), inactiveMarket: Bool(), highAmbiguity: Bool(), nearResolution: Bool() }),
});

/** One venue's (or the total's) realized performance block (supplement §2.7). */
export const VenueCounts = Type.Object({
  realizedPnlMusd: Num(),
  tradeCount: Int(),
  winCount: Int(),
  lossCount: Int(),
  neutralCount: Int(),
  winRate: Nullable(Num()),
});
export const ByVenue = Type.Object({ spot: VenueCounts, futures: VenueCounts, pm: VenueCounts });
