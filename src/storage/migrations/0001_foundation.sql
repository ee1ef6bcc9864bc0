-- Owners, keys, the private ledger, idempotency records and the paper books.
CREATE TABLE users (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id),
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  scopes text[] NOT NULL,
  agent_name text,
  agent_model text,
  is_public boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

CREATE TABLE ledger_events (
  id uuid PRIMARY KEY,
  key_id integer NOT NULL REFERENCES api_keys(id),
  method text NOT NULL,
  endpoint text NOT NULL,
  venue text,
  event_type text NOT NULL,
  status_code integer,
  ledger_status text NOT NULL,
  latency_ms integer,
  idempotency_key text,
  related_entity_type text,
  related_entity_id text,
  request_summary jsonb,
  response_summary jsonb,
  block_reasons text[] NOT NULL DEFAULT '{}',
  run_id text,
  decision_id text,
  strategy_label text,
  confidence double precision,
  rationale_summary text,
  started_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX ledger_events_key_started_idx ON ledger_events (key_id, started_at DESC, id DESC);
CREATE INDEX ledger_events_key_run_idx ON ledger_events (key_id, run_id) WHERE run_id IS NOT NULL;

CREATE TABLE idempotency_records (
  key_id integer NOT NULL REFERENCES api_keys(id),
  idempotency_key text NOT NULL,
  route text NOT NULL,
  request_hash text NOT NULL,
  status_code integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, idempotency_key)
);

-- One paper book per key. Cash (USDT, coinId 825) is split into four disjoint buckets.
CREATE TABLE wallets (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id integer NOT NULL UNIQUE REFERENCES api_keys(id),
  cash_available numeric NOT NULL DEFAULT 0,
  cash_frozen numeric NOT NULL DEFAULT 0,
  cash_frozen_pm numeric NOT NULL DEFAULT 0,
  cash_frozen_futures numeric NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT wallets_cash_non_negative CHECK (
    cash_available >= 0 AND cash_frozen >= 0 AND cash_frozen_pm >= 0 AND cash_frozen_futures >= 0
  )
);

-- Every balance change is a posting here; balances must always equal the journal sums.
CREATE TABLE journal_postings (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  wallet_id integer NOT NULL REFERENCES wallets(id),
  coin_id text NOT NULL,
  bucket text NOT NULL,
  amount numeric NOT NULL,
  reason text NOT NULL,
  ref_type text,
  ref_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX journal_postings_wallet_idx ON journal_postings (wallet_id, coin_id, bucket);
