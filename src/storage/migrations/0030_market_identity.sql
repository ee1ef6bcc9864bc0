-- The market settings every process of a deployment must share (MARKET_DATA, SIM_SEED,
-- SIM_PROFILE, the coin universe): each process on PostgreSQL compares its own with the ones
-- recorded here at start, and is refused while processes with other settings run (a worker
-- with another seed filled orders and liquidated positions at prices no api ever served).
CREATE TABLE market_identity (
  id integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  identity jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
