-- The settings every process of a deployment should share though they do not change the market
-- (HOUSE_AGENTS, the open flags, the api rate budgets), one row per server process under the
-- name its connections carry. A starting process compares its own with those of the processes
-- connected now and warns where they differ (one api listed house agents, another none).
-- Rows of processes long gone are dropped at start.
CREATE TABLE process_settings (
  name text PRIMARY KEY,
  settings jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
