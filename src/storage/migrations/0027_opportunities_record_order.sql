-- Opportunities (the dataset's non-opened records) page in the order they were recorded, not by
-- id. Ids are drawn when a row is inserted but become visible when its transaction commits, so
-- on PostgreSQL a row with a lower id can appear after a client's cursor has passed a higher
-- one, and it was never served to that client. recorded_seq is drawn under one transaction-level
-- advisory lock (the same scheme as resolved_seq in 0026): numbers commit in the order drawn.
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).

CREATE SEQUENCE arena_decisions_recorded_seq;
ALTER TABLE arena_decisions ADD COLUMN recorded_seq bigint;

-- Opportunities recorded before this migration keep the order the dataset served them in (by id).
ALTER TABLE arena_decisions DISABLE TRIGGER arena_decisions_immutable;
UPDATE arena_decisions d SET recorded_seq = r.n
  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM arena_decisions WHERE opportunity_kind <> 'opened') r
  WHERE d.id = r.id;
ALTER TABLE arena_decisions ENABLE TRIGGER arena_decisions_immutable;
SELECT setval('arena_decisions_recorded_seq', coalesce(max(recorded_seq), 0) + 1, false) FROM arena_decisions;

CREATE FUNCTION arena_decisions_record_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.opportunity_kind <> 'opened' THEN
    -- Namespace 52484, object 2: the opportunities' record order (object 1 is the resolution order).
    PERFORM pg_advisory_xact_lock(52484, 2); --
    NEW.recorded_seq := nextval('arena_decisions_recorded_seq'); --
  END IF; --
  RETURN NEW; --
END
$$;

-- Non-opened records are never updated (arena_decisions_immutable refuses it), so insert is enough.
CREATE TRIGGER arena_decisions_recorded_order BEFORE INSERT ON arena_decisions
  FOR EACH ROW EXECUTE FUNCTION arena_decisions_record_order();

DROP INDEX arena_decisions_opportunities_idx;
CREATE UNIQUE INDEX arena_decisions_recorded_seq_idx ON arena_decisions (recorded_seq) WHERE recorded_seq IS NOT NULL;
