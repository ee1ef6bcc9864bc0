-- When each periodic job that keeps its schedule last started, on any process: a restart or a
-- leadership takeover waits out the interval since then instead of running the job at once
-- (hourly rank snapshots were taken twice, 91 s apart; every restart froze scorecard runs).
CREATE TABLE job_schedule (
  job text PRIMARY KEY,
  last_started_at timestamptz NOT NULL
);
