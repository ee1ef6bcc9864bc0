-- Agent Arena: realized aggregates, rank snapshots, competitions, decision records and
-- scorecard runs. Statements inside function bodies end with "; --" so the migration
-- splitter (one statement per ";" at a line end) keeps each function whole.

-- All-time realized aggregates per key and venue, folded from closed_trades by a trigger
-- in the same transaction that writes the trade (so the board never scans the trade log).
CREATE TABLE arena_agent_totals (
  key_id integer NOT NULL REFERENCES api_keys(id),
  venue text NOT NULL,
  realized_pnl numeric NOT NULL DEFAULT 0,
  trade_count integer NOT NULL DEFAULT 0,
  win_count integer NOT NULL DEFAULT 0,
  loss_count integer NOT NULL DEFAULT 0,
  neutral_count integer NOT NULL DEFAULT 0,
  biggest_win numeric NOT NULL DEFAULT 0,
  first_trade_at timestamptz NOT NULL,
  last_trade_at timestamptz NOT NULL,
  PRIMARY KEY (key_id, venue)
);

-- The same per UTC day (windows and sparklines).
CREATE TABLE arena_agent_days (
  key_id integer NOT NULL REFERENCES api_keys(id),
  day date NOT NULL,
  venue text NOT NULL,
  realized_pnl numeric NOT NULL DEFAULT 0,
  trade_count integer NOT NULL DEFAULT 0,
  win_count integer NOT NULL DEFAULT 0,
  loss_count integer NOT NULL DEFAULT 0,
  neutral_count integer NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day, venue)
);
CREATE INDEX arena_agent_days_day_idx ON arena_agent_days (day, key_id);

-- Bumped by any change to keys (publish, unpublish, rename, revoke, new key), so the board
-- cache knows public identities changed without reading every key.
CREATE TABLE arena_identity_version (
  id integer PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO arena_identity_version (id, version) VALUES (1, 0);

CREATE FUNCTION arena_bump_identity_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE arena_identity_version SET version = version + 1 WHERE id = 1; --
  RETURN NULL; --
END
$$;

CREATE TRIGGER api_keys_arena_identity AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION arena_bump_identity_version();

-- Rolling 24 h boards read recent trades directly.
CREATE INDEX arena_closed_trades_closed_at_idx ON closed_trades (closed_at);

CREATE FUNCTION arena_fold_closed_trade() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pnl numeric := coalesce(NEW.realized_pnl, 0); --
  w integer := CASE WHEN NEW.realized_pnl > 0 THEN 1 ELSE 0 END; --
  l integer := CASE WHEN NEW.realized_pnl < 0 THEN 1 ELSE 0 END; --
  n integer := CASE WHEN NEW.realized_pnl = 0 THEN 1 ELSE 0 END; --
BEGIN
  INSERT INTO arena_agent_totals AS t (key_id, venue, realized_pnl, trade_count, win_count, loss_count, neutral_count,
    biggest_win, first_trade_at, last_trade_at)
  VALUES (NEW.key_id, NEW.venue, pnl, 1, w, l, n, greatest(pnl, 0), NEW.closed_at, NEW.closed_at)
  ON CONFLICT (key_id, venue) DO UPDATE SET
    realized_pnl = t.realized_pnl + EXCLUDED.realized_pnl,
    trade_count = t.trade_count + 1,
    win_count = t.win_count + EXCLUDED.win_count,
    loss_count = t.loss_count + EXCLUDED.loss_count,
    neutral_count = t.neutral_count + EXCLUDED.neutral_count,
    biggest_win = greatest(t.biggest_win, EXCLUDED.biggest_win),
    first_trade_at = least(t.first_trade_at, EXCLUDED.first_trade_at),
    last_trade_at = greatest(t.last_trade_at, EXCLUDED.last_trade_at); --
  INSERT INTO arena_agent_days AS d (key_id, day, venue, realized_pnl, trade_count, win_count, loss_count, neutral_count)
  VALUES (NEW.key_id, (NEW.closed_at AT TIME ZONE 'UTC')::date, NEW.venue, pnl, 1, w, l, n)
  ON CONFLICT (key_id, day, venue) DO UPDATE SET
    realized_pnl = d.realized_pnl + EXCLUDED.realized_pnl,
    trade_count = d.trade_count + 1,
    win_count = d.win_count + EXCLUDED.win_count,
    loss_count = d.loss_count + EXCLUDED.loss_count,
    neutral_count = d.neutral_count + EXCLUDED.neutral_count; --
  RETURN NULL; --
END
$$;

CREATE TRIGGER closed_trades_arena_fold AFTER INSERT ON closed_trades
  FOR EACH ROW EXECUTE FUNCTION arena_fold_closed_trade();

-- Rows of the trade log that existed before this migration.
INSERT INTO arena_agent_totals (key_id, venue, realized_pnl, trade_count, win_count, loss_count, neutral_count,
  biggest_win, first_trade_at, last_trade_at)
SELECT key_id, venue, coalesce(sum(realized_pnl), 0), count(*)::int,
  count(*) FILTER (WHERE realized_pnl > 0)::int, count(*) FILTER (WHERE realized_pnl < 0)::int,
  count(*) FILTER (WHERE realized_pnl = 0)::int, greatest(coalesce(max(realized_pnl), 0), 0), min(closed_at), max(closed_at)
FROM closed_trades GROUP BY key_id, venue;

INSERT INTO arena_agent_days (key_id, day, venue, realized_pnl, trade_count, win_count, loss_count, neutral_count)
SELECT key_id, (closed_at AT TIME ZONE 'UTC')::date, venue, coalesce(sum(realized_pnl), 0), count(*)::int,
  count(*) FILTER (WHERE realized_pnl > 0)::int, count(*) FILTER (WHERE realized_pnl < 0)::int,
  count(*) FILTER (WHERE realized_pnl = 0)::int
FROM closed_trades GROUP BY 1, 2, 3;

-- Hourly rank snapshots per board window, for rankDelta (kept 26 h).
CREATE TABLE arena_rank_snapshots (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  board_window text NOT NULL,
  taken_at timestamptz NOT NULL,
  key_ids integer[] NOT NULL,
  ranks integer[] NOT NULL
);
CREATE INDEX arena_rank_snapshots_window_idx ON arena_rank_snapshots (board_window, taken_at DESC);

-- Competitions: created and entered by owners (admin API / CLI), read publicly.
CREATE TABLE competitions (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  description text,
  visibility text NOT NULL CHECK (visibility IN ('public', 'unlisted')),
  featured boolean NOT NULL DEFAULT false,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  final_board jsonb,
  finalized_at timestamptz,
  CONSTRAINT competitions_window CHECK (ends_at > starts_at)
);

CREATE TABLE competition_entries (
  competition_id integer NOT NULL REFERENCES competitions(id),
  key_id integer NOT NULL REFERENCES api_keys(id),
  joined_at timestamptz NOT NULL,
  PRIMARY KEY (competition_id, key_id)
);

-- Decision records (PM opens and non-opened opportunities). Everything is fixed at write
-- time except the settlement stamp, which is written once; a trigger enforces both.
CREATE TABLE arena_decisions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  decision_uuid uuid NOT NULL UNIQUE,
  schema_version integer NOT NULL,
  opportunity_kind text NOT NULL CHECK (opportunity_kind IN ('opened', 'validation_failed', 'risk_rejected',
    'execution_rejected', 'abstained', 'forecast_only', 'quote_expired')),
  reason_code text,
  result text NOT NULL,
  evaluation_policy_version text NOT NULL,
  execution_policy_version text NOT NULL,
  key_id integer REFERENCES api_keys(id),
  agent text,
  agent_model text,
  venue text,
  event_title text,
  event_slug text,
  event_id text,
  side text,
  chosen_outcome text,
  agent_forecast_probability double precision,
  thesis text,
  market_probability double precision,
  reference_probability double precision,
  reference_venue_count integer,
  edge_points double precision,
  run_id text,
  client_decision_id text,
  decision_context jsonb,
  provenance jsonb,
  outcomes_count integer,
  stake_musd numeric,
  shares_musd numeric,
  position_id text,
  created_at timestamptz NOT NULL,
  content_hash text NOT NULL,
  content_hash_fields text[] NOT NULL,
  settlement_label text CHECK (settlement_label IN ('won', 'lost', 'void')),
  settled_at timestamptz,
  pnl_musd numeric,
  brier double precision,
  agent_brier double precision
);
CREATE INDEX arena_decisions_resolved_idx ON arena_decisions (id)
  WHERE opportunity_kind = 'opened' AND settlement_label IN ('won', 'lost');
CREATE INDEX arena_decisions_opportunities_idx ON arena_decisions (id) WHERE opportunity_kind <> 'opened';
CREATE INDEX arena_decisions_key_idx ON arena_decisions (key_id, id);
CREATE UNIQUE INDEX arena_decisions_position_idx ON arena_decisions (position_id) WHERE position_id IS NOT NULL;

CREATE FUNCTION arena_decisions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'decision records are immutable' USING ERRCODE = 'check_violation'; --
  END IF; --
  IF OLD.settlement_label IS NOT NULL OR OLD.opportunity_kind <> 'opened' THEN
    RAISE EXCEPTION 'decision % is already settled or cannot settle', OLD.decision_uuid USING ERRCODE = 'check_violation'; --
  END IF; --
  IF (to_jsonb(NEW) - 'settlement_label' - 'settled_at' - 'pnl_musd' - 'brier' - 'agent_brier')
     IS DISTINCT FROM (to_jsonb(OLD) - 'settlement_label' - 'settled_at' - 'pnl_musd' - 'brier' - 'agent_brier') THEN
    RAISE EXCEPTION 'decision % fields are immutable', OLD.decision_uuid USING ERRCODE = 'check_violation'; --
  END IF; --
  RETURN NEW; --
END
$$;

CREATE TRIGGER arena_decisions_immutable BEFORE UPDATE OR DELETE ON arena_decisions
  FOR EACH ROW EXECUTE FUNCTION arena_decisions_guard();

-- Frozen scorecard runs; never changed after insert.
CREATE TABLE arena_scorecard_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id integer NOT NULL REFERENCES api_keys(id),
  agent text NOT NULL,
  computed_at timestamptz NOT NULL,
  evaluation_policy_version text NOT NULL,
  execution_policy_version text NOT NULL,
  window_key text,
  input_count integer NOT NULL,
  forecasted_count integer NOT NULL,
  settled_forecast_count integer NOT NULL,
  cohort jsonb,
  result_json jsonb NOT NULL,
  content_hash text NOT NULL,
  metrics_hash text NOT NULL,
  contributions jsonb NOT NULL
);
CREATE INDEX arena_scorecard_runs_key_idx ON arena_scorecard_runs (key_id, id DESC);

CREATE FUNCTION arena_runs_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'scorecard runs are immutable' USING ERRCODE = 'check_violation'; --
END
$$;

CREATE TRIGGER arena_scorecard_runs_immutable BEFORE UPDATE OR DELETE ON arena_scorecard_runs
  FOR EACH ROW EXECUTE FUNCTION arena_runs_guard();
