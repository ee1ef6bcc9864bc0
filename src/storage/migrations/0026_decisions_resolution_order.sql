-- The decisions dataset pages in the order decisions resolved, not by id. Its cursor was the
-- last id served, but a decision enters the dataset when it settles: one opened before the
-- cursor and settled after it was never served to a client paging with cursors.
-- resolved_seq numbers won/lost decisions as they settle. Settlements take one transaction-level
-- advisory lock before drawing a number, so numbers are committed in the order they are drawn
-- and a cursor never passes a number whose row is not yet visible.
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).

CREATE SEQUENCE arena_decisions_resolved_seq;
ALTER TABLE arena_decisions ADD COLUMN resolved_seq bigint;

-- Decisions resolved before this migration keep the order the dataset served them in (by id).
ALTER TABLE arena_decisions DISABLE TRIGGER arena_decisions_immutable;
UPDATE arena_decisions d SET resolved_seq = r.n
  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM arena_decisions
        WHERE opportunity_kind = 'opened' AND settlement_label IN ('won', 'lost')) r
  WHERE d.id = r.id;
ALTER TABLE arena_decisions ENABLE TRIGGER arena_decisions_immutable;
SELECT setval('arena_decisions_resolved_seq', coalesce(max(resolved_seq), 0) + 1, false) FROM arena_decisions;

CREATE FUNCTION arena_decisions_resolution_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.opportunity_kind = 'opened' AND NEW.settlement_label IN ('won', 'lost') AND (TG_OP = 'INSERT' OR OLD.settlement_label IS NULL) THEN
    -- Namespace 52484 (job leadership uses 52483), object 1: the dataset's resolution order.
    PERFORM pg_advisory_xact_lock(52484, 1); --
    NEW.resolved_seq := nextval('arena_decisions_resolved_seq'); --
  END IF; --
  RETURN NEW; --
END
$$;

-- Runs after arena_decisions_immutable (BEFORE triggers fire in name order), which refuses an
-- update that sets resolved_seq itself: only this trigger numbers a settlement.
CREATE TRIGGER arena_decisions_resolved_order BEFORE INSERT OR UPDATE ON arena_decisions
  FOR EACH ROW EXECUTE FUNCTION arena_decisions_resolution_order();

DROP INDEX arena_decisions_resolved_idx;
CREATE UNIQUE INDEX arena_decisions_resolved_seq_idx ON arena_decisions (resolved_seq) WHERE resolved_seq IS NOT NULL;
CREATE INDEX arena_decisions_key_resolved_idx ON arena_decisions (key_id, resolved_seq) WHERE resolved_seq IS NOT NULL;
