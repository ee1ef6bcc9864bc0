-- House (demo) agents: one row per built-in strategy, naming the key it trades with.
-- The primary key on the strategy makes creation once-per-database even when several
-- processes start together (the loser's key is rolled back with its transaction).
CREATE TABLE house_agents (
  strategy text PRIMARY KEY,
  key_id integer NOT NULL UNIQUE REFERENCES api_keys(id),
  -- The last job tick (unix ms / step length) this agent completed: a re-run of a tick skips it.
  last_step_tick bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);
