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
