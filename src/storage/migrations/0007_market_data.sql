-- The coin universe (from assets/coins.json, refreshed on every start).
CREATE TABLE coins (
  coin_id text PRIMARY KEY,
  slug text NOT NULL,
  symbol text NOT NULL,
  name text NOT NULL,
  rank integer,
  categories text[] NOT NULL DEFAULT '{}',
  circulating_supply double precision NOT NULL DEFAULT 0
);

-- The simulated market's last checkpoint: the minute state its stored bars are folded up to.
CREATE TABLE sim_checkpoint (
  id integer PRIMARY KEY CHECK (id = 1),
  seed text NOT NULL,
  profile text NOT NULL,
  universe_hash text NOT NULL,
  minute_index integer NOT NULL,
  state jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Candle bars of every coin for one range and bar open time (unix s), packed as float64
-- [o, h, l, c, volumeSum, samples] per coin in universe order.
CREATE TABLE sim_bars (
  range text NOT NULL,
  open_time bigint NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (range, open_time)
);
