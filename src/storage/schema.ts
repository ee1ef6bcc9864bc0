import {
  bigint,
  boolean,
  doublePrecision,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

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
  requestSummary: jsonb('request_summary'),
  responseSummary: jsonb('response_summary'),
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
