-- Mock prediction-market positions (issue 7). The stake sits in the wallet's cash
-- `frozenPm` while a row is open; settlement pays out, writes a closed trade (venue pm)
-- and stamps the row's decision record.
CREATE TABLE pm_positions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id integer NOT NULL REFERENCES api_keys(id),
  wallet_id integer NOT NULL REFERENCES wallets(id),
  source text NOT NULL,
  event_slug text NOT NULL,
  event_title text NOT NULL,
  outcome_external_id text NOT NULL,
  outcome_label text NOT NULL,
  side text NOT NULL CHECK (side IN ('yes', 'no')),
  fill_basis text NOT NULL,
  entry_probability double precision NOT NULL,
  fill_probability double precision NOT NULL,
  entry_prob_sum double precision NOT NULL,
  stake_musd numeric NOT NULL CHECK (stake_musd > 0),
  shares_musd numeric NOT NULL CHECK (shares_musd > 0),
  fee_musd numeric NOT NULL,
  shape text NOT NULL,
  markets_count integer,
  entry_outcomes_snapshot jsonb,
  freshness_at_entry jsonb NOT NULL,
  event_status_at_entry text,
  status text NOT NULL CHECK (status IN ('open', 'won', 'lost', 'void_refunded')),
  settlement_state text NOT NULL CHECK (settlement_state IN ('pending', 'settled', 'voided')),
  void_reason text,
  payout_musd numeric,
  pnl_musd numeric,
  opened_at timestamptz NOT NULL,
  settled_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX pm_positions_open_market_idx ON pm_positions (source, event_slug) WHERE status = 'open';
CREATE INDEX pm_positions_key_idx ON pm_positions (key_id, updated_at DESC, id DESC);
