-- Running per-key totals for the account reads (portfolio progression, performance), so a
-- read costs the same after 10 or 10,000 orders. Triggers fold each new closed_trades /
-- spot_orders row in the transaction that writes it, whatever code path writes it.
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).

CREATE TABLE account_totals (
  key_id integer PRIMARY KEY REFERENCES api_keys(id),
  orders_placed bigint NOT NULL DEFAULT 0,
  trade_rows bigint NOT NULL DEFAULT 0,
  -- cumulative realized PnL in insertion order, its running peak (from 0) and the largest
  -- peak-to-trough drop so far
  cum_realized numeric NOT NULL DEFAULT 0,
  peak_realized numeric NOT NULL DEFAULT 0,
  max_drawdown numeric NOT NULL DEFAULT 0,
  active_days integer NOT NULL DEFAULT 0
);

-- Decided trades (realized PnL not null) per key and venue.
CREATE TABLE account_venue_totals (
  key_id integer NOT NULL REFERENCES api_keys(id),
  venue text NOT NULL,
  realized_pnl numeric NOT NULL DEFAULT 0,
  decided_count integer NOT NULL DEFAULT 0,
  win_count integer NOT NULL DEFAULT 0,
  loss_count integer NOT NULL DEFAULT 0,
  neutral_count integer NOT NULL DEFAULT 0,
  gross_win numeric NOT NULL DEFAULT 0,
  gross_loss numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, venue)
);

-- UTC days with any trade-log row (activeDays counts them once each).
CREATE TABLE account_active_days (
  key_id integer NOT NULL REFERENCES api_keys(id),
  day date NOT NULL,
  PRIMARY KEY (key_id, day)
);

CREATE FUNCTION account_fold_closed_trade() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p numeric := coalesce(NEW.realized_pnl, 0); --
  new_day integer; --
BEGIN
  INSERT INTO account_active_days (key_id, day) VALUES (NEW.key_id, (NEW.closed_at AT TIME ZONE 'UTC')::date)
  ON CONFLICT DO NOTHING; --
  GET DIAGNOSTICS new_day = ROW_COUNT; --
  INSERT INTO account_totals AS t (key_id, trade_rows, cum_realized, peak_realized, max_drawdown, active_days)
  VALUES (NEW.key_id, 1, p, greatest(p, 0), greatest(p, 0) - p, new_day)
  ON CONFLICT (key_id) DO UPDATE SET
    trade_rows = t.trade_rows + 1,
    cum_realized = t.cum_realized + p,
    peak_realized = greatest(t.peak_realized, t.cum_realized + p),
    max_drawdown = greatest(t.max_drawdown, greatest(t.peak_realized, t.cum_realized + p) - (t.cum_realized + p)),
    active_days = t.active_days + new_day; --
  IF NEW.realized_pnl IS NOT NULL THEN
    INSERT INTO account_venue_totals AS v (key_id, venue, realized_pnl, decided_count, win_count, loss_count, neutral_count, gross_win, gross_loss)
    VALUES (NEW.key_id, NEW.venue, p, 1, (p > 0)::int, (p < 0)::int, (p = 0)::int, greatest(p, 0), greatest(-p, 0))
    ON CONFLICT (key_id, venue) DO UPDATE SET
      realized_pnl = v.realized_pnl + EXCLUDED.realized_pnl,
      decided_count = v.decided_count + 1,
      win_count = v.win_count + EXCLUDED.win_count,
      loss_count = v.loss_count + EXCLUDED.loss_count,
      neutral_count = v.neutral_count + EXCLUDED.neutral_count,
      gross_win = v.gross_win + EXCLUDED.gross_win,
      gross_loss = v.gross_loss + EXCLUDED.gross_loss; --
  END IF; --
  RETURN NULL; --
END
$$;

CREATE TRIGGER closed_trades_account_fold AFTER INSERT ON closed_trades
  FOR EACH ROW EXECUTE FUNCTION account_fold_closed_trade();

CREATE FUNCTION account_count_spot_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_totals AS t (key_id, orders_placed) VALUES (NEW.key_id, 1)
  ON CONFLICT (key_id) DO UPDATE SET orders_placed = t.orders_placed + 1; --
  RETURN NULL; --
END
$$;

CREATE TRIGGER spot_orders_account_count AFTER INSERT ON spot_orders
  FOR EACH ROW EXECUTE FUNCTION account_count_spot_order();

-- Rows written before this migration.
INSERT INTO account_active_days (key_id, day)
SELECT DISTINCT key_id, (closed_at AT TIME ZONE 'UTC')::date FROM closed_trades;

INSERT INTO account_venue_totals (key_id, venue, realized_pnl, decided_count, win_count, loss_count, neutral_count, gross_win, gross_loss)
SELECT key_id, venue, sum(realized_pnl), count(*)::int, count(*) FILTER (WHERE realized_pnl > 0)::int,
  count(*) FILTER (WHERE realized_pnl < 0)::int, count(*) FILTER (WHERE realized_pnl = 0)::int,
  coalesce(sum(realized_pnl) FILTER (WHERE realized_pnl > 0), 0), coalesce(-sum(realized_pnl) FILTER (WHERE realized_pnl < 0), 0)
FROM closed_trades WHERE realized_pnl IS NOT NULL GROUP BY key_id, venue;

INSERT INTO account_totals (key_id, orders_placed, trade_rows, cum_realized, peak_realized, max_drawdown, active_days)
SELECT k.id,
  (SELECT count(*) FROM spot_orders o WHERE o.key_id = k.id),
  coalesce(d.n, 0), coalesce(d.cum, 0), coalesce(d.peak, 0), coalesce(d.dd, 0),
  (SELECT count(*)::int FROM account_active_days a WHERE a.key_id = k.id)
FROM api_keys k
LEFT JOIN (
  SELECT key_id, count(*) AS n, coalesce(sum(pnl), 0) AS cum, max(peak) AS peak, max(peak - cum) AS dd
  FROM (
    SELECT key_id, coalesce(realized_pnl, 0) AS pnl,
      sum(coalesce(realized_pnl, 0)) OVER w AS cum,
      greatest(0, max(sum_c) OVER w) AS peak
    FROM (SELECT *, sum(coalesce(realized_pnl, 0)) OVER (PARTITION BY key_id ORDER BY id) AS sum_c FROM closed_trades) c
    WINDOW w AS (PARTITION BY key_id ORDER BY id)
  ) x GROUP BY key_id
) d ON d.key_id = k.id
WHERE EXISTS (SELECT 1 FROM closed_trades c WHERE c.key_id = k.id) OR EXISTS (SELECT 1 FROM spot_orders o WHERE o.key_id = k.id);

-- Resting orders and open PM positions of one key without walking its closed history.
CREATE INDEX spot_orders_key_resting_idx ON spot_orders (key_id, updated_at DESC, id DESC) WHERE status IN ('open', 'triggered');
CREATE INDEX pm_positions_key_open_idx ON pm_positions (key_id) WHERE status = 'open';

-- Ledger counts per key for the performance auditStats, folded per inserted batch by a
-- statement trigger (the ledger writer inserts rows in batches). Counts are all-time:
-- pruning old ledger rows does not lower them.
CREATE TABLE ledger_key_totals (
  key_id integer PRIMARY KEY REFERENCES api_keys(id),
  events bigint NOT NULL DEFAULT 0,
  quotes bigint NOT NULL DEFAULT 0,
  writes bigint NOT NULL DEFAULT 0,
  rejections bigint NOT NULL DEFAULT 0,
  replays bigint NOT NULL DEFAULT 0,
  run_ids bigint NOT NULL DEFAULT 0,
  decision_ids bigint NOT NULL DEFAULT 0,
  writes_with_quote bigint NOT NULL DEFAULT 0
);

-- The latest quote per key and instrument (body coinId, or PM source/slug) and venue ('' for
-- none): a write "follows a quote" when one started in the 5 minutes before it.
CREATE TABLE ledger_last_quotes (
  key_id integer NOT NULL REFERENCES api_keys(id),
  venue text NOT NULL,
  instrument text NOT NULL,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (key_id, venue, instrument)
);

CREATE FUNCTION ledger_instrument(summary jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(summary #>> '{body,coinId}', (summary #>> '{body,source}') || '/' || (summary #>> '{body,slug}'))
$$;

CREATE FUNCTION ledger_fold_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH n AS (
    SELECT key_id, event_type, ledger_status, run_id, decision_id, started_at, coalesce(venue, '') AS venue,
           ledger_instrument(request_summary) AS instrument
    FROM new_rows
  )
  INSERT INTO ledger_key_totals AS t (key_id, events, quotes, writes, rejections, replays, run_ids, decision_ids, writes_with_quote)
  SELECT key_id, count(*), count(*) FILTER (WHERE event_type = 'quote'), count(*) FILTER (WHERE event_type = 'write'),
    count(*) FILTER (WHERE ledger_status = 'rejected'), count(*) FILTER (WHERE ledger_status = 'idempotent_replay'),
    count(run_id), count(decision_id),
    count(*) FILTER (WHERE event_type = 'write' AND instrument IS NOT NULL AND (
      EXISTS (SELECT 1 FROM n q WHERE q.key_id = n.key_id AND q.event_type = 'quote' AND q.instrument = n.instrument
              AND q.venue = n.venue AND q.started_at <= n.started_at AND q.started_at >= n.started_at - interval '5 minutes')
      OR EXISTS (SELECT 1 FROM ledger_last_quotes l WHERE l.key_id = n.key_id AND l.venue = n.venue AND l.instrument = n.instrument
              AND l.last_at <= n.started_at AND l.last_at >= n.started_at - interval '5 minutes')))
  FROM n GROUP BY key_id ORDER BY key_id
  ON CONFLICT (key_id) DO UPDATE SET
    events = t.events + EXCLUDED.events, quotes = t.quotes + EXCLUDED.quotes, writes = t.writes + EXCLUDED.writes,
    rejections = t.rejections + EXCLUDED.rejections, replays = t.replays + EXCLUDED.replays,
    run_ids = t.run_ids + EXCLUDED.run_ids, decision_ids = t.decision_ids + EXCLUDED.decision_ids,
    writes_with_quote = t.writes_with_quote + EXCLUDED.writes_with_quote; --
  INSERT INTO ledger_last_quotes AS l (key_id, venue, instrument, last_at)
  SELECT key_id, coalesce(venue, ''), ledger_instrument(request_summary), max(started_at) FROM new_rows
  WHERE event_type = 'quote' AND ledger_instrument(request_summary) IS NOT NULL
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (key_id, venue, instrument) DO UPDATE SET last_at = greatest(l.last_at, EXCLUDED.last_at); --
  RETURN NULL; --
END
$$;

CREATE TRIGGER ledger_events_fold AFTER INSERT ON ledger_events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledger_fold_events();

-- Ledger rows written before this migration (the same rule over the whole history).
WITH e AS (
  SELECT key_id, event_type, ledger_status, run_id, decision_id, started_at, coalesce(venue, '') AS venue,
         ledger_instrument(request_summary) AS instrument
  FROM ledger_events
)
INSERT INTO ledger_key_totals (key_id, events, quotes, writes, rejections, replays, run_ids, decision_ids, writes_with_quote)
SELECT key_id, count(*), count(*) FILTER (WHERE event_type = 'quote'), count(*) FILTER (WHERE event_type = 'write'),
  count(*) FILTER (WHERE ledger_status = 'rejected'), count(*) FILTER (WHERE ledger_status = 'idempotent_replay'),
  count(run_id), count(decision_id),
  count(*) FILTER (WHERE event_type = 'write' AND instrument IS NOT NULL AND EXISTS (
    SELECT 1 FROM e q WHERE q.key_id = e.key_id AND q.event_type = 'quote' AND q.instrument = e.instrument AND q.venue = e.venue
      AND q.started_at <= e.started_at AND q.started_at >= e.started_at - interval '5 minutes'))
FROM e GROUP BY key_id;

INSERT INTO ledger_last_quotes (key_id, venue, instrument, last_at)
SELECT key_id, coalesce(venue, ''), ledger_instrument(request_summary), max(started_at) FROM ledger_events
WHERE event_type = 'quote' AND ledger_instrument(request_summary) IS NOT NULL GROUP BY 1, 2, 3;
