-- Cheaper trade writes (issue 11), measured with pg_stat_user_functions on one connection:
-- the two small SQL-language helpers cost ~115-120 µs per call (a non-inlinable SQL function
-- is planned again on every call), five calls per spot order; as PL/pgSQL their statements
-- are planned once per session. paper_resolve_refs returns its input untouched when it holds
-- no `$refs` (most rows). book_signal raised one NOTICE per changed row (four per spot order,
-- ~70 µs each): it now signals a key once per transaction (the reading side holds a key from
-- its first signal until the writing transaction ends, src/storage/book-cache.ts).

CREATE OR REPLACE FUNCTION paper_row_json(j jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (SELECT coalesce(jsonb_object_agg(key, CASE WHEN jsonb_typeof(value) = 'number' THEN to_jsonb(value #>> '{}') ELSE value END), '{}'::jsonb)
          FROM jsonb_each(j));
END
$$;

CREATE OR REPLACE FUNCTION paper_resolve_refs(e jsonb, ids jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF NOT (e ? '$refs') THEN
    RETURN e;
  END IF;
  RETURN (e - '$refs') || coalesce((SELECT jsonb_object_agg(key, ids -> (value #>> '{}')) FROM jsonb_each(e -> '$refs')), '{}'::jsonb);
END
$$;

CREATE OR REPLACE FUNCTION book_signal(payload text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  mode text := current_setting('paper.book_signal', true);
  what text := coalesce(payload, '*');
BEGIN
  IF mode IS NULL OR mode = '' THEN
    RETURN;
  END IF;
  -- the last key signalled in this transaction (set_config(..., true) ends with it)
  IF current_setting('paper.book_signalled', true) = what THEN
    RETURN;
  END IF;
  PERFORM set_config('paper.book_signalled', what, true);
  IF mode = 'notice' THEN
    RAISE NOTICE USING MESSAGE = 'paper_books:' || what;
  ELSIF mode = 'notify' THEN
    PERFORM pg_notify('paper_books', what);
  END IF;
END
$$;
