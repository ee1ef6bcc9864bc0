-- Isolated mock-futures positions (contract §2.11, supplement 2.4, 3.2, 3.3).
-- One open position per key and coin (the unique partial index); closed and liquidated rows
-- stay as history. Times come from the service clock; updated_at is bumped by every move
-- (open, add, SL/TP change, partial close, close, liquidation) for updatedSince polling.
CREATE TABLE futures_positions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id integer NOT NULL REFERENCES api_keys(id),
  wallet_id integer NOT NULL REFERENCES wallets(id),
  coin_id text NOT NULL,
  symbol text NOT NULL,
  coin_name text NOT NULL,
  side text NOT NULL CHECK (side IN ('long', 'short')),
  status text NOT NULL CHECK (status IN ('open', 'closed', 'liquidated')),
  leverage numeric NOT NULL CHECK (leverage >= 1 AND leverage <= 20),
  entry_price numeric NOT NULL CHECK (entry_price > 0),
  margin numeric NOT NULL CHECK (margin >= 0),
  size_coin numeric NOT NULL CHECK (size_coin >= 0),
  maintenance_margin_rate numeric NOT NULL,
  liquidation_price numeric NOT NULL,
  -- open fees paid but not yet charged to a realized PnL (a close takes its share)
  open_fees_unrealized numeric NOT NULL DEFAULT 0,
  stop_loss_price numeric,
  take_profit_price numeric,
  freshness_at_entry jsonb NOT NULL,
  exit_price numeric,
  exit_reason text CHECK (exit_reason IN ('user_close', 'liquidation', 'stop_loss', 'take_profit')),
  realized_pnl numeric,
  -- the idempotencyKey of the open that created the position
  idempotency_key text,
  opened_at timestamptz NOT NULL,
  closed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX futures_positions_one_open_idx ON futures_positions (key_id, coin_id) WHERE status = 'open';
CREATE INDEX futures_positions_key_updated_idx ON futures_positions (key_id, updated_at DESC, id DESC);
-- the risk job scans open positions coin by coin
CREATE INDEX futures_positions_open_coin_idx ON futures_positions (coin_id) WHERE status = 'open';

-- One row per move of a position, for the ledger export's futuresEvents[] (supplement 2.6).
CREATE TABLE futures_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  position_id bigint NOT NULL REFERENCES futures_positions(id),
  key_id integer NOT NULL REFERENCES api_keys(id),
  type text NOT NULL CHECK (type IN ('open', 'add', 'reduce', 'close', 'liquidation', 'stop_loss', 'take_profit', 'sl_tp_set')),
  size_delta_coin numeric NOT NULL,
  mark_price numeric,
  fill_price numeric,
  realized_pnl numeric,
  margin_delta numeric NOT NULL,
  fee numeric NOT NULL,
  slippage numeric NOT NULL,
  execution_version text,
  idempotency_key text,
  created_at timestamptz NOT NULL
);
CREATE INDEX futures_events_key_idx ON futures_events (key_id, created_at DESC, id DESC);
