import {
  bigint,
  boolean,
  doublePrecision,
  integer,
  json,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

// Mirrors migrations/*.sql (the SQL files are the source of truth for the database).
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const apiKeys = pgTable('api_keys', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: text('user_id').notNull(),
  keyHash: text('key_hash').notNull(),
  keyPrefix: text('key_prefix').notNull(),
  scopes: text('scopes').array().notNull(),
  agentName: text('agent_name'),
  agentModel: text('agent_model'),
  isPublic: boolean('is_public').notNull().default(false),
  createdAt: ts('created_at').notNull().defaultNow(),
  revokedAt: ts('revoked_at'),
});

export const ledgerEvents = pgTable('ledger_events', {
  id: uuid('id').primaryKey(),
  /** Public integer id (reference B8), migration 0016; reserved in blocks before persistence. */
  seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('ledger_event_seq')`),
  keyId: integer('key_id').notNull(),
  method: text('method').notNull(),
  endpoint: text('endpoint').notNull(),
  venue: text('venue'),
  eventType: text('event_type').notNull(),
  statusCode: integer('status_code'),
  ledgerStatus: text('ledger_status').notNull(),
  latencyMs: integer('latency_ms'),
  idempotencyKey: text('idempotency_key'),
  relatedEntityType: text('related_entity_type'),
  relatedEntityId: text('related_entity_id'),
  // json, not jsonb: stored as sent (migration 0020)
  requestSummary: json('request_summary'),
  responseSummary: json('response_summary'),
  blockReasons: text('block_reasons').array().notNull(),
  runId: text('run_id'),
  decisionId: text('decision_id'),
  strategyLabel: text('strategy_label'),
  confidence: doublePrecision('confidence'),
  rationaleSummary: text('rationale_summary'),
  startedAt: ts('started_at').notNull(),
  completedAt: ts('completed_at'),
});

export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    keyId: integer('key_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    route: text('route').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code'),
    response: jsonb('response'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.idempotencyKey] })],
);

export const wallets = pgTable('wallets', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  keyId: integer('key_id').notNull(),
  cashAvailable: numeric('cash_available').notNull(),
  cashFrozen: numeric('cash_frozen').notNull(),
  cashFrozenPm: numeric('cash_frozen_pm').notNull(),
  cashFrozenFutures: numeric('cash_frozen_futures').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const journalPostings = pgTable('journal_postings', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  walletId: integer('wallet_id').notNull(),
  coinId: text('coin_id').notNull(),
  bucket: text('bucket').notNull(),
  amount: numeric('amount').notNull(),
  reason: text('reason').notNull(),
  refType: text('ref_type'),
  refId: text('ref_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const closedTrades = pgTable('closed_trades', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  keyId: integer('key_id').notNull(),
  walletId: integer('wallet_id').notNull(),
  venue: text('venue').$type<'spot' | 'futures' | 'pm'>().notNull(),
  side: text('side').notNull(),
  coinId: text('coin_id'),
  symbol: text('symbol'),
  market: text('market'),
  outcome: text('outcome'),
  realizedPnl: numeric('realized_pnl'),
  closedAt: ts('closed_at').notNull(),
  refType: text('ref_type'),
  refId: text('ref_id'),
  detail: jsonb('detail').notNull(),
});

export const equitySnapshots = pgTable(
  'equity_snapshots',
  {
    keyId: integer('key_id').notNull(),
    day: text('day').notNull(),
    usdValue: numeric('usd_value').notNull(),
    takenAt: ts('taken_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day] })],
);

// ---- spot (migrations/0003_spot.sql)
export const holdings = pgTable(
  'holdings',
  {
    walletId: integer('wallet_id').notNull(),
    coinId: text('coin_id').notNull(),
    available: numeric('available').notNull(),
    frozen: numeric('frozen').notNull(),
    avgCostUsd: numeric('avg_cost_usd').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.walletId, t.coinId] })],
);

export const spotOrders = pgTable('spot_orders', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  keyId: integer('key_id').notNull(),
  walletId: integer('wallet_id').notNull(),
  coinId: text('coin_id').notNull(),
  symbol: text('symbol'),
  side: text('side').$type<'buy' | 'sell'>().notNull(),
  orderType: text('order_type').$type<'limit' | 'stop'>().notNull(),
  quantity: numeric('quantity').notNull(),
  limitPrice: numeric('limit_price').notNull(),
  stopPrice: numeric('stop_price'),
  status: text('status').$type<'open' | 'triggered' | 'filled' | 'cancelled'>().notNull(),
  frozenAmount: numeric('frozen_amount').notNull(),
  idempotencyKey: text('idempotency_key'),
  checkedUntil: ts('checked_until').notNull(),
  triggeredAt: ts('triggered_at'),
  fillTradeId: bigint('fill_trade_id', { mode: 'number' }),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
  closedAt: ts('closed_at'),
});

export const futuresPositions = pgTable('futures_positions', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  keyId: integer('key_id').notNull(),
  walletId: integer('wallet_id').notNull(),
  coinId: text('coin_id').notNull(),
  symbol: text('symbol').notNull(),
  coinName: text('coin_name').notNull(),
  side: text('side').$type<'long' | 'short'>().notNull(),
  status: text('status').$type<'open' | 'closed' | 'liquidated'>().notNull(),
  leverage: numeric('leverage').notNull(),
  entryPrice: numeric('entry_price').notNull(),
  margin: numeric('margin').notNull(),
  sizeCoin: numeric('size_coin').notNull(),
  maintenanceMarginRate: numeric('maintenance_margin_rate').notNull(),
  liquidationPrice: numeric('liquidation_price').notNull(),
  openFeesUnrealized: numeric('open_fees_unrealized').notNull(),
  stopLossPrice: numeric('stop_loss_price'),
  takeProfitPrice: numeric('take_profit_price'),
  freshnessAtEntry: jsonb('freshness_at_entry').$type<Record<string, unknown>>().notNull(),
  exitPrice: numeric('exit_price'),
  exitReason: text('exit_reason').$type<'user_close' | 'liquidation' | 'stop_loss' | 'take_profit'>(),
  realizedPnl: numeric('realized_pnl'),
  idempotencyKey: text('idempotency_key'),
  openedAt: ts('opened_at').notNull(),
  closedAt: ts('closed_at'),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

// ---- Agent Arena (migration 0006_arena.sql; queried with SQL in src/storage/arena-*.ts) ----

export const arenaAgentTotals = pgTable(
  'arena_agent_totals',
  {
    keyId: integer('key_id').notNull(),
    venue: text('venue').notNull(),
    realizedPnl: numeric('realized_pnl').notNull(),
    tradeCount: integer('trade_count').notNull(),
    winCount: integer('win_count').notNull(),
    lossCount: integer('loss_count').notNull(),
    neutralCount: integer('neutral_count').notNull(),
    biggestWin: numeric('biggest_win').notNull(),
    firstTradeAt: ts('first_trade_at').notNull(),
    lastTradeAt: ts('last_trade_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.venue] })],
);

export const arenaAgentDays = pgTable(
  'arena_agent_days',
  {
    keyId: integer('key_id').notNull(),
    day: text('day').notNull(),
    venue: text('venue').notNull(),
    realizedPnl: numeric('realized_pnl').notNull(),
    tradeCount: integer('trade_count').notNull(),
    winCount: integer('win_count').notNull(),
    lossCount: integer('loss_count').notNull(),
    neutralCount: integer('neutral_count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.venue] })],
);

export const arenaRankSnapshots = pgTable('arena_rank_snapshots', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  boardWindow: text('board_window').notNull(),
  takenAt: ts('taken_at').notNull(),
  keyIds: integer('key_ids').array().notNull(),
  ranks: integer('ranks').array().notNull(),
});

export const competitions = pgTable('competitions', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  description: text('description'),
  visibility: text('visibility').$type<'public' | 'unlisted'>().notNull(),
  featured: boolean('featured').notNull(),
  startsAt: ts('starts_at').notNull(),
  endsAt: ts('ends_at').notNull(),
  createdAt: ts('created_at').notNull(),
  finalBoard: jsonb('final_board'),
  finalizedAt: ts('finalized_at'),
});

export const competitionEntries = pgTable(
  'competition_entries',
  {
    competitionId: integer('competition_id').notNull(),
    keyId: integer('key_id').notNull(),
    joinedAt: ts('joined_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.keyId] })],
);

export const arenaDecisions = pgTable('arena_decisions', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  decisionUuid: uuid('decision_uuid').notNull().unique(),
  schemaVersion: integer('schema_version').notNull(),
  opportunityKind: text('opportunity_kind').notNull(),
  reasonCode: text('reason_code'),
  result: text('result').notNull(),
  evaluationPolicyVersion: text('evaluation_policy_version').notNull(),
  executionPolicyVersion: text('execution_policy_version').notNull(),
  keyId: integer('key_id'),
  agent: text('agent'),
  agentModel: text('agent_model'),
  venue: text('venue'),
  eventTitle: text('event_title'),
  eventSlug: text('event_slug'),
  eventId: text('event_id'),
  side: text('side'),
  chosenOutcome: text('chosen_outcome'),
  agentForecastProbability: doublePrecision('agent_forecast_probability'),
  thesis: text('thesis'),
  marketProbability: doublePrecision('market_probability'),
  referenceProbability: doublePrecision('reference_probability'),
  referenceVenueCount: integer('reference_venue_count'),
  edgePoints: doublePrecision('edge_points'),
  runId: text('run_id'),
  clientDecisionId: text('client_decision_id'),
  decisionContext: jsonb('decision_context'),
  provenance: jsonb('provenance'),
  outcomesCount: integer('outcomes_count'),
  stakeMusd: numeric('stake_musd'),
  sharesMusd: numeric('shares_musd'),
  positionId: text('position_id'),
  createdAt: ts('created_at').notNull(),
  contentHash: text('content_hash').notNull(),
  contentHashFields: text('content_hash_fields').array().notNull(),
  settlementLabel: text('settlement_label'),
  settledAt: ts('settled_at'),
  pnlMusd: numeric('pnl_musd'),
  brier: doublePrecision('brier'),
  agentBrier: doublePrecision('agent_brier'),
});

export const arenaScorecardRuns = pgTable('arena_scorecard_runs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  keyId: integer('key_id').notNull(),
  agent: text('agent').notNull(),
  computedAt: ts('computed_at').notNull(),
  evaluationPolicyVersion: text('evaluation_policy_version').notNull(),
  executionPolicyVersion: text('execution_policy_version').notNull(),
  windowKey: text('window_key'),
  inputCount: integer('input_count').notNull(),
  forecastedCount: integer('forecasted_count').notNull(),
  settledForecastCount: integer('settled_forecast_count').notNull(),
  cohort: jsonb('cohort'),
  resultJson: jsonb('result_json').notNull(),
  contentHash: text('content_hash').notNull(),
  metricsHash: text('metrics_hash').notNull(),
  contributions: jsonb('contributions').notNull(),
});

export const arenaIdentityVersion = pgTable('arena_identity_version', {
  id: integer('id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
});

// ---- prediction-market research data (migration 0005, issue 6) ----
export const pmMarkets = pgTable('pm_markets', {
  source: text('source').notNull(),
  slug: text('slug').notNull(),
  marketId: text('market_id').notNull(),
  title: text('title').notNull(),
  description: text('description'),
  category: text('category').notNull(),
  kind: text('kind').notNull(),
  status: text('status').notNull(),
  outcomes: jsonb('outcomes').notNull(),
  volume: doublePrecision('volume').notNull(),
  volume24h: doublePrecision('volume24h').notNull(),
  liquidity: doublePrecision('liquidity').notNull(),
  priceChange24h: doublePrecision('price_change_24h'),
  priceChange7d: doublePrecision('price_change_7d'),
  startAt: ts('start_at'),
  endAt: ts('end_at'),
  closedAt: ts('closed_at'),
  resolutionState: text('resolution_state'),
  resolvedAt: ts('resolved_at'),
  resolvedAtVerified: boolean('resolved_at_verified').notNull(),
  winnerExternalId: text('winner_external_id'),
  resolutionBasis: text('resolution_basis'),
  rules: text('rules'),
  settlementSource: text('settlement_source'),
  coinIds: jsonb('coin_ids').notNull(),
  topics: jsonb('topics').notNull(),
  finalProbabilities: jsonb('final_probabilities'),
  leadProbabilities: jsonb('lead_probabilities'),
  spark: jsonb('spark').notNull(),
  canonicalKey: text('canonical_key'),
  orientation: text('orientation'),
  matchConfidence: doublePrecision('match_confidence'),
  matchBasis: text('match_basis'),
  lastCaptureAt: ts('last_capture_at'),
  updatedAt: ts('updated_at').notNull(),
  /** Internal integer event id (reference `eventId`), migration 0016. */
  eventId: bigint('event_id', { mode: 'number' }).generatedByDefaultAsIdentity(),
  firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.source, t.slug] })]);

export const pmCaptures = pgTable('pm_captures', {
  source: text('source').notNull(),
  slug: text('slug').notNull(),
  capturedAt: ts('captured_at').notNull(),
  probabilities: jsonb('probabilities').notNull(),
  leaderP: doublePrecision('leader_p').notNull(),
  volume: doublePrecision('volume').notNull(),
  volume24h: doublePrecision('volume24h').notNull(),
  liquidity: doublePrecision('liquidity').notNull(),
}, (t) => [primaryKey({ columns: [t.source, t.slug, t.capturedAt] })]);

export const pmWhaleTrades = pgTable('pm_whale_trades', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  slug: text('slug').notNull(),
  title: text('title').notNull(),
  wallet: text('wallet'),
  traderName: text('trader_name'),
  side: text('side').notNull(),
  outcome: text('outcome').notNull(),
  usdValue: doublePrecision('usd_value').notNull(),
  price: doublePrecision('price').notNull(),
  tradedAt: ts('traded_at').notNull(),
  observedAt: ts('observed_at').notNull(),
  evidenceType: text('evidence_type').notNull(),
  evidenceRef: text('evidence_ref'),
  evidenceUrl: text('evidence_url'),
});

export const pmVenueHealth = pgTable('pm_venue_health', {
  source: text('source').primaryKey(),
  mode: text('mode').notNull(),
  lastAttemptAt: ts('last_attempt_at'),
  lastSuccessAt: ts('last_success_at'),
  lastError: text('last_error'),
  consecutiveFailures: integer('consecutive_failures').notNull(),
});

export const pmStreamEvents = pgTable('pm_stream_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  kind: text('kind').notNull(),
  payload: jsonb('payload').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const futuresEvents = pgTable('futures_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  positionId: bigint('position_id', { mode: 'number' }).notNull(),
  keyId: integer('key_id').notNull(),
  type: text('type')
    .$type<'open' | 'add' | 'reduce' | 'close' | 'liquidation' | 'stop_loss' | 'take_profit' | 'sl_tp_set'>()
    .notNull(),
  sizeDeltaCoin: numeric('size_delta_coin').notNull(),
  markPrice: numeric('mark_price'),
  fillPrice: numeric('fill_price'),
  realizedPnl: numeric('realized_pnl'),
  marginDelta: numeric('margin_delta').notNull(),
  fee: numeric('fee').notNull(),
  slippage: numeric('slippage').notNull(),
  executionVersion: text('execution_version'),
  idempotencyKey: text('idempotency_key'),
  createdAt: ts('created_at').notNull(),
});

export const houseAgents = pgTable('house_agents', {
  strategy: text('strategy').primaryKey(),
  keyId: integer('key_id').notNull().unique(),
  lastStepTick: bigint('last_step_tick', { mode: 'number' }),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/** Mock PM positions (0010_pm_trading.sql). */
export const pmPositions = pgTable('pm_positions', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  keyId: integer('key_id').notNull(),
  walletId: integer('wallet_id').notNull(),
  source: text('source').notNull(),
  eventSlug: text('event_slug').notNull(),
  eventTitle: text('event_title').notNull(),
  outcomeExternalId: text('outcome_external_id').notNull(),
  outcomeLabel: text('outcome_label').notNull(),
  side: text('side').notNull(),
  fillBasis: text('fill_basis').notNull(),
  entryProbability: doublePrecision('entry_probability').notNull(),
  fillProbability: doublePrecision('fill_probability').notNull(),
  entryProbSum: doublePrecision('entry_prob_sum').notNull(),
  stakeMusd: numeric('stake_musd').notNull(),
  sharesMusd: numeric('shares_musd').notNull(),
  feeMusd: numeric('fee_musd').notNull(),
  shape: text('shape').notNull(),
  marketsCount: integer('markets_count'),
  entryOutcomesSnapshot: jsonb('entry_outcomes_snapshot'),
  freshnessAtEntry: jsonb('freshness_at_entry').notNull(),
  eventStatusAtEntry: text('event_status_at_entry'),
  status: text('status').notNull(),
  settlementState: text('settlement_state').notNull(),
  voidReason: text('void_reason'),
  payoutMusd: numeric('payout_musd'),
  pnlMusd: numeric('pnl_musd'),
  openedAt: ts('opened_at').notNull(),
  settledAt: ts('settled_at'),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});
