-- The market settings every process of a deployment must share (MARKET_DATA, SIM_SEED,
-- SIM_PROFILE, the coin universe), one row per set of settings under its hash. A server process
-- carries the hash in its connections' application_name; a process whose hash differs from a
-- connected process's is refused at start (a worker with another seed filled orders and
-- liquidated positions at prices no api ever served). The rows only describe the hashes.
CREATE TABLE market_identity (
  hash text PRIMARY KEY,
  identity jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
