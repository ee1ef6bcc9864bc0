-- Spot paper trading: coin holdings per book and resting (limit / stop-limit) orders.
-- Every holding change is also a journal_postings row (coin_id = the coin, bucket
-- available|frozen), written in the transaction that holds the book's lock.
CREATE TABLE holdings (
  wallet_id integer NOT NULL REFERENCES wallets(id),
  coin_id text NOT NULL,
  available numeric NOT NULL DEFAULT 0,
  frozen numeric NOT NULL DEFAULT 0,
  -- average entry price (USD per unit, fees excluded) of the units held
  avg_cost_usd numeric NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (wallet_id, coin_id),
  CONSTRAINT holdings_non_negative CHECK (available >= 0 AND frozen >= 0)
);

-- Resting orders. Market orders fill at once and live only in closed_trades.
-- status: open → (stop only) triggered → filled | cancelled.
CREATE TABLE spot_orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id integer NOT NULL REFERENCES api_keys(id),
  wallet_id integer NOT NULL REFERENCES wallets(id),
  coin_id text NOT NULL,
  symbol text,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  order_type text NOT NULL CHECK (order_type IN ('limit', 'stop')),
  quantity numeric NOT NULL CHECK (quantity > 0),
  limit_price numeric NOT NULL CHECK (limit_price > 0),
  stop_price numeric CHECK (stop_price > 0),
  status text NOT NULL CHECK (status IN ('open', 'triggered', 'filled', 'cancelled')),
  -- what placing the order froze: mUSD for buys (limit × quantity + fee), coin units for sells
  frozen_amount numeric NOT NULL,
  idempotency_key text,
  -- the matcher has examined the market up to here (the order rests from this instant)
  checked_until timestamptz NOT NULL,
  triggered_at timestamptz,
  fill_trade_id bigint,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  closed_at timestamptz
);
CREATE INDEX spot_orders_key_updated_idx ON spot_orders (key_id, updated_at DESC, id DESC);
CREATE INDEX spot_orders_resting_idx ON spot_orders (id) WHERE status IN ('open', 'triggered');
