-- Cheaper ledger rows (issue 11): every keyed call writes one, so their database cost is part
-- of every request's.
-- 1. The request and response summaries are stored as json (the text as sent), not jsonb:
--    nothing queries inside them but ledger_instrument, and jsonb converted every number of a
--    summary to numeric on insert — about 30-40 µs of a row with five candles in its summary.
--    Reads return the same values; keys keep the order the summary had.
-- 2. The fold matched each write of a batch against every row of the batch for a quote before
--    it (quadratic in the batch: ~25 µs a row at 150-row batches of orders). It now matches
--    writes against the batch's quotes only.
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).

ALTER TABLE ledger_events
  ALTER COLUMN request_summary TYPE json USING request_summary::json,
  ALTER COLUMN response_summary TYPE json USING response_summary::json;

CREATE FUNCTION ledger_instrument(summary json) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(summary #>> '{body,coinId}', (summary #>> '{body,source}') || '/' || (summary #>> '{body,slug}'))
$$;

DROP FUNCTION ledger_instrument(jsonb);

CREATE OR REPLACE FUNCTION ledger_fold_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH n AS (
    SELECT key_id, event_type, ledger_status, run_id, decision_id, started_at, coalesce(venue, '') AS venue,
           ledger_instrument(request_summary) AS instrument
    FROM new_rows
  ), q AS MATERIALIZED (
    SELECT key_id, venue, instrument, started_at FROM n WHERE event_type = 'quote' AND instrument IS NOT NULL
  )
  INSERT INTO ledger_key_totals AS t (key_id, events, quotes, writes, rejections, replays, run_ids, decision_ids, writes_with_quote)
  SELECT key_id, count(*), count(*) FILTER (WHERE event_type = 'quote'), count(*) FILTER (WHERE event_type = 'write'),
    count(*) FILTER (WHERE ledger_status = 'rejected'), count(*) FILTER (WHERE ledger_status = 'idempotent_replay'),
    count(run_id), count(decision_id),
    count(*) FILTER (WHERE event_type = 'write' AND instrument IS NOT NULL AND (
      EXISTS (SELECT 1 FROM q WHERE q.key_id = n.key_id AND q.instrument = n.instrument AND q.venue = n.venue
              AND q.started_at <= n.started_at AND q.started_at >= n.started_at - interval '5 minutes')
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
