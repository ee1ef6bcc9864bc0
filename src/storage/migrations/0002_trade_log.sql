-- The trade log shared by every venue (spot, futures, pm): one row per fill or close.
-- Rows with a realized PnL (spot sells, futures closes/liquidations, PM settlements) are
-- "decided" trades: they feed the equity curve's realized points, performance and the Arena.
CREATE TABLE closed_trades (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id integer NOT NULL REFERENCES api_keys(id),
  wallet_id integer NOT NULL REFERENCES wallets(id),
  venue text NOT NULL CHECK (venue IN ('spot', 'futures', 'pm')),
  side text NOT NULL,
  coin_id text,
  symbol text,
  market text,
  outcome text,
  realized_pnl numeric,
  closed_at timestamptz NOT NULL,
  ref_type text,
  ref_id text,
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX closed_trades_key_closed_idx ON closed_trades (key_id, closed_at DESC, id DESC);
CREATE INDEX closed_trades_closed_idx ON closed_trades (closed_at) WHERE realized_pnl IS NOT NULL;

-- One equity value per key and UTC day, written by the equity-snapshot job.
CREATE TABLE equity_snapshots (
  key_id integer NOT NULL REFERENCES api_keys(id),
  day date NOT NULL,
  usd_value numeric NOT NULL,
  taken_at timestamptz NOT NULL,
  PRIMARY KEY (key_id, day)
);
