/** Response schemas of the agent account and coin-market reads (wallet, portfolio, orders, trades, equity, performance, resolve, market, candles, movers). */
import { Type } from 'typebox';
import { DateTime, Nullable, OpenObject, StringEnum } from '../schemas.js';
import { Bool, ByVenue, DecisionSupport, Freshness, Int, Num, Observation, Str, VenueCounts } from './common.js';

const Side = StringEnum(['buy', 'sell'] as const);
const OrderType = StringEnum(['market', 'limit', 'stop'] as const);
const OrderStatus = Str({ description: 'open, triggered, filled, cancelled' });

export const WalletResponse = Type.Object({
  walletId: Int(),
  usdt: Type.Object({ coinId: Str(), available: Num(), frozen: Num(), frozenPm: Num(), frozenFutures: Num(), avgCostUsd: Num() }),
  coin: Nullable(Type.Object({ coinId: Str(), available: Num(), frozen: Num(), avgCostUsd: Nullable(Num()) })),
});

const Progression = Type.Object({
  league: Nullable(Str()),
  xpPoints: Num(),
  rankInLeague: Nullable(Int()),
  nextLeague: Nullable(Type.Object({ name: Str(), xpNeeded: Num() })),
  tasks: Type.Array(Type.Object({ id: Str(), title: Str(), done: Bool() })),
});

export const PortfolioResponse = Type.Object({
  walletId: Int(),
  equity: Type.Object({
    totalUsd: Num(),
    cashTotal: Num(),
    available: Num(),
    frozen: Num(),
    frozenPm: Num(),
    frozenFutures: Num(),
    spotHoldingsUsd: Num(),
    otherVenuesUsd: Num(),
  }),
  pnl: Type.Object({
    '24hUsd': Num(),
    '24hPct': Num(),
    '7dUsd': Num(),
    '7dPct': Num(),
    '30dUsd': Num(),
    '30dPct': Num(),
    allTimeUsd: Num(),
    allTimePct: Num(),
  }),
  openOrders: Type.Array(
    Type.Object({
      id: Int(),
      side: Side,
      orderType: OrderType,
      coinId: Str(),
      symbol: Nullable(Str()),
      price: Num(),
      stopPrice: Nullable(Num()),
      quantity: Num(),
      quantityFilled: Num(),
      status: OrderStatus,
      currentPriceUsd: Nullable(Num()),
    }),
  ),
  progression: Progression,
  fiat: Str(),
  locale: Str(),
  asOf: DateTime,
});

export const OpenOrdersResponse = Type.Object({
  walletId: Int(),
  coinId: Nullable(Str({ description: 'the coin filter applied; null when listing all coins' })),
  count: Int(),
  rows: Type.Array(
    Type.Object({
      id: Int(),
      side: Side,
      orderType: OrderType,
      coinId: Str(),
      symbol: Nullable(Str()),
      limitPrice: Num(),
      stopPrice: Nullable(Num()),
      quantity: Num(),
      quantityFilled: Num(),
      triggered: Nullable(Bool()),
      status: OrderStatus,
      createdAt: DateTime,
      updatedAt: DateTime,
    }),
  ),
  updatedSince: Nullable(DateTime),
  asOf: DateTime,
});

export const TradesResponse = Type.Object({
  walletId: Nullable(Int()),
  venue: StringEnum(['all', 'spot', 'futures', 'pm'] as const),
  count: Int(),
  updatedSince: Nullable(DateTime),
  asOf: DateTime,
  trades: Type.Array(
    Type.Object({
      venue: StringEnum(['spot', 'futures', 'pm'] as const),
      id: Int(),
      closedAt: DateTime,
      side: Str({ description: 'buy/sell (spot), long/short (futures), the PM side' }),
      realizedPnlMusd: Nullable(Num()),
      coinId: Nullable(Str()),
      symbol: Nullable(Str()),
      market: Nullable(Str()),
      outcome: Nullable(Str()),
      detail: OpenObject('venue-specific fill detail (free-form)'),
    }),
  ),
});

export const EquityCurveResponse = Type.Object({
  walletId: Nullable(Int()),
  window: Type.Object({ days: Int(), from: DateTime }),
  granularity: StringEnum(['daily', 'realized'] as const),
  points: Type.Array(
    Type.Union([
      Type.Object({ date: Str({ format: 'date' }), usdValue: Num() }),
      Type.Object({
        t: DateTime,
        venue: StringEnum(['spot', 'futures', 'pm'] as const),
        realizedPnlMusd: Num(),
        cumulativeRealizedPnlMusd: Num(),
        tradeId: Int(),
      }),
    ]),
  ),
});

/** Ledger counters (supplement 2.7): on /performance and, public, on Arena rows. */
export const AuditStats = Type.Object({
  ledgerEventCount: Int(),
  quoteCount: Int(),
  writeCount: Int(),
  rejectionCount: Int(),
  idempotentReplayCount: Int(),
  runIdEventCount: Int(),
  decisionIdEventCount: Int(),
  missingRunIdCount: Int(),
  missingDecisionIdCount: Int(),
  runTraceCoverage: Nullable(Num()),
  decisionTraceCoverage: Nullable(Num()),
  quoteBeforeTradeRate: Nullable(Num()),
});

export const PerformanceResponse = Type.Object({
  apiKeyId: Int(),
  totals: VenueCounts,
  byVenue: ByVenue,
  evaluation: Type.Object({
    maxDrawdownMusd: Num(),
    profitFactor: Nullable(Num()),
    averageWinMusd: Nullable(Num()),
    averageLossMusd: Nullable(Num()),
    activeDays: Int(),
  }),
  auditStats: AuditStats,
  asOf: DateTime,
});

export const CoinMatch = Type.Object({
  coinId: Str(),
  slug: Str(),
  symbol: Str(),
  name: Str(),
  marketCapRank: Nullable(Int()),
  categories: Type.Array(Str()),
});

export const ResolveResponse = Type.Object({ query: Str(), match: Nullable(CoinMatch), alternatives: Type.Array(CoinMatch) });

export const MarketContextResponse = Type.Object({
  coin: Type.Object({ coinId: Str(), symbol: Str(), name: Str(), marketCapRank: Nullable(Int()), categories: Type.Array(Str()) }),
  price: Nullable(
    Type.Object({
      usd: Num(),
      change1h: Nullable(Num()),
      change24h: Nullable(Num()),
      change7d: Nullable(Num()),
      marketCapUsd: Nullable(Num()),
      volume24hUsd: Num(),
    }),
  ),
  sentiment: Type.Object({
    bullishVotes: Int(),
    bearishVotes: Int(),
    totalVotes: Int(),
    bullishPct: Nullable(Int()),
    dayUtc: Type.Null({ description: 'reference field; not tracked here (always null)' }),
    updatedAt: Type.Null({ description: 'reference field; not tracked here (always null)' }),
  }),
  fearGreed: Nullable(
    Type.Object({
      value: Num(),
      label: StringEnum(['Extreme Fear', 'Fear', 'Neutral', 'Greed', 'Extreme Greed'] as const),
      fetchedAt: Type.Null({ description: 'reference field; not tracked here (always null)' }),
    }),
  ),
  futuresEntryEligibility: Type.Object(
    {
      status: Type.Literal('eligible'),
      referenceRequired: Type.Literal(false),
      venue: Type.Null(),
      symbol: Type.Null(),
      referenceFetchedAt: Type.Null(),
      maxReferenceAgeHours: Type.Null(),
      evaluatedAt: DateTime,
    },
    {
      description:
        'reference field (supplement 2.23): futures here need no perpetual reference, so always eligible on that count; opens still check the mark, cash and FUTURES_OPEN_ENABLED',
    },
  ),
  relatedMarkets: Type.Array(
    Type.Object({
      source: Str(),
      title: Str(),
      slug: Str(),
      outcome: Str({ description: 'the leading outcome' }),
      probability: Num({ description: '0..1 fraction' }),
      volume24h: Num(),
      liquidity: Num(),
      decisionSupport: DecisionSupport,
    }),
  ),
  similarCoins: Type.Array(
    Type.Object({ coinId: Str(), slug: Str(), symbol: Str(), name: Str(), marketCapRank: Nullable(Int()), sharedCategoryCount: Int() }),
  ),
  asOf: DateTime,
  freshness: Freshness,
  observation: Observation,
});

export const CandlesResponse = Type.Object({
  coin: Type.Object({ ucid: Str(), slug: Str(), symbol: Str(), name: Str() }),
  range: Str(),
  fiat: Str(),
  rateToUsd: Num(),
  candles: Type.Array(
    Type.Object({ t: Int({ description: 'unix seconds' }), o: Num(), h: Num(), l: Num(), c: Num(), v: Num({ description: 'mean rolling 24 h USD volume' }) }),
  ),
  observation: Observation,
});
