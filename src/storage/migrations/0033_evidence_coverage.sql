-- Scorecard `evidence_coverage` (supplement 2.13: the share of writes that carry both a run id
-- and a decision id). The fold counted run and decision ids over every ledger row, not over
-- writes, so the metric was always null. Two counters beside the others: the writes counted for
-- it, and those with both ids. They start from the ledger rows still kept (retention prunes
-- older ones, which `writes` still counts), so the share is over the same writes on both sides.
-- Also: a futures close or SL/TP names no coin in its body (it names a position), so it never
-- counted as quoted and any agent that closed a position scored leakage_clean 0; its handler now
-- notes the position's coin as the request summary's `instrument`, which ledger_instrument reads
-- first (rows written before keep their verdicts).
-- While the back-fill reads the ledger (seconds on millions of rows), new ledger rows wait: an
-- older process still running (a rolling upgrade) would otherwise insert rows that the back-fill
-- does not see and its old fold does not count. Reads of the totals wait only for the short
-- ALTER and UPDATE at the end.
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).

LOCK TABLE ledger_events IN SHARE MODE;

CREATE TEMP TABLE evidence_backfill ON COMMIT DROP AS
SELECT key_id, count(*) AS writes, count(*) FILTER (WHERE run_id IS NOT NULL AND decision_id IS NOT NULL) AS traced
FROM ledger_events WHERE event_type = 'write' GROUP BY key_id;

CREATE OR REPLACE FUNCTION ledger_instrument(summary json) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(summary ->> 'instrument', summary #>> '{body,coinId}', (summary #>> '{body,source}') || '/' || (summary #>> '{body,slug}'))
$$;

ALTER TABLE ledger_key_totals
  ADD COLUMN evidence_writes bigint NOT NULL DEFAULT 0,
  ADD COLUMN writes_with_evidence bigint NOT NULL DEFAULT 0;

UPDATE ledger_key_totals t SET evidence_writes = c.writes, writes_with_evidence = c.traced
FROM evidence_backfill c WHERE c.key_id = t.key_id;

CREATE OR REPLACE FUNCTION ledger_fold_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH n AS (
    SELECT key_id, event_type, ledger_status, run_id, decision_id, started_at, coalesce(venue, '') AS venue,
           ledger_instrument(request_summary) AS instrument
    FROM new_rows
  ), q AS MATERIALIZED (
    SELECT key_id, venue, instrument, started_at FROM n WHERE event_type = 'quote' AND instrument IS NOT NULL
  )
  INSERT INTO ledger_key_totals AS t (key_id, events, quotes, writes, rejections, replays, run_ids, decision_ids, writes_with_quote,
                                     evidence_writes, writes_with_evidence)
  SELECT key_id, count(*), count(*) FILTER (WHERE event_type = 'quote'), count(*) FILTER (WHERE event_type = 'write'),
    count(*) FILTER (WHERE ledger_status = 'rejected'), count(*) FILTER (WHERE ledger_status = 'idempotent_replay'),
    count(run_id), count(decision_id),
    count(*) FILTER (WHERE event_type = 'write' AND instrument IS NOT NULL AND (
      EXISTS (SELECT 1 FROM q WHERE q.key_id = n.key_id AND q.instrument = n.instrument AND q.venue = n.venue
              AND q.started_at <= n.started_at AND q.started_at >= n.started_at - interval '5 minutes')
      OR EXISTS (SELECT 1 FROM ledger_last_quotes l WHERE l.key_id = n.key_id AND l.venue = n.venue AND l.instrument = n.instrument
              AND l.last_at <= n.started_at AND l.last_at >= n.started_at - interval '5 minutes'))),
    count(*) FILTER (WHERE event_type = 'write'),
    count(*) FILTER (WHERE event_type = 'write' AND run_id IS NOT NULL AND decision_id IS NOT NULL)
  FROM n GROUP BY key_id ORDER BY key_id
  ON CONFLICT (key_id) DO UPDATE SET
    events = t.events + EXCLUDED.events, quotes = t.quotes + EXCLUDED.quotes, writes = t.writes + EXCLUDED.writes,
    rejections = t.rejections + EXCLUDED.rejections, replays = t.replays + EXCLUDED.replays,
    run_ids = t.run_ids + EXCLUDED.run_ids, decision_ids = t.decision_ids + EXCLUDED.decision_ids,
    writes_with_quote = t.writes_with_quote + EXCLUDED.writes_with_quote,
    evidence_writes = t.evidence_writes + EXCLUDED.evidence_writes,
    writes_with_evidence = t.writes_with_evidence + EXCLUDED.writes_with_evidence; --
  INSERT INTO ledger_last_quotes AS l (key_id, venue, instrument, last_at)
  SELECT key_id, coalesce(venue, ''), ledger_instrument(request_summary), max(started_at) FROM new_rows
  WHERE event_type = 'quote' AND ledger_instrument(request_summary) IS NOT NULL
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (key_id, venue, instrument) DO UPDATE SET last_at = greatest(l.last_at, EXCLUDED.last_at); --
  RETURN NULL; --
END
$$;
