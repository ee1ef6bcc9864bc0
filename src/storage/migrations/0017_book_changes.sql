-- Every change to a table that a cacheable account-read part reads (src/storage/book-cache.ts)
-- says which key's book changed ('*' = every book), whatever code path wrote it. Only a session
-- that asked for it (setting paper.book_signal, set by the database layer of a process that
-- caches books) gets the signal; other sessions pay one function call per changed row.
-- - 'notice': RAISE NOTICE 'paper_books:<keyId>' on the writing connection, as the row changes
--   (PostgreSQL; NOTIFY would serialize every committing transaction behind one lock).
-- - 'notify': NOTIFY paper_books '<keyId>' at commit (PGlite: one session, delivered before the
--   committing statement returns).
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).
CREATE FUNCTION book_signal(payload text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  mode text := current_setting('paper.book_signal', true); --
BEGIN
  IF mode = 'notice' THEN
    RAISE NOTICE USING MESSAGE = 'paper_books:' || coalesce(payload, '*'); --
  ELSIF mode = 'notify' THEN
    PERFORM pg_notify('paper_books', coalesce(payload, '*')); --
  END IF; --
END $$;

CREATE FUNCTION book_changed_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM book_signal(OLD.key_id::text); END IF; --
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.key_id IS DISTINCT FROM OLD.key_id) THEN
    PERFORM book_signal(NEW.key_id::text); --
  END IF; --
  RETURN NULL; --
END $$;

-- holdings carry the wallet, not the key.
CREATE FUNCTION book_changed_wallet() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM book_signal((SELECT key_id FROM wallets WHERE id = OLD.wallet_id)::text); END IF; --
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.wallet_id IS DISTINCT FROM OLD.wallet_id) THEN
    PERFORM book_signal((SELECT key_id FROM wallets WHERE id = NEW.wallet_id)::text); --
  END IF; --
  RETURN NULL; --
END $$;

-- Set-wide writes (the daily snapshot job, truncation): every book, once per statement.
CREATE FUNCTION book_changed_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM book_signal('*'); --
  RETURN NULL; --
END $$;

CREATE TRIGGER wallets_book_changed AFTER INSERT OR UPDATE OR DELETE ON wallets FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER holdings_book_changed AFTER INSERT OR UPDATE OR DELETE ON holdings FOR EACH ROW EXECUTE FUNCTION book_changed_wallet();
CREATE TRIGGER spot_orders_book_changed AFTER INSERT OR UPDATE OR DELETE ON spot_orders FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER futures_positions_book_changed AFTER INSERT OR UPDATE OR DELETE ON futures_positions FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER pm_positions_book_changed AFTER INSERT OR UPDATE OR DELETE ON pm_positions FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER closed_trades_book_changed AFTER INSERT OR UPDATE OR DELETE ON closed_trades FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER account_totals_book_changed AFTER INSERT OR UPDATE OR DELETE ON account_totals FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER account_venue_totals_book_changed AFTER INSERT OR UPDATE OR DELETE ON account_venue_totals FOR EACH ROW EXECUTE FUNCTION book_changed_key();
CREATE TRIGGER equity_snapshots_book_changed AFTER INSERT OR UPDATE OR DELETE ON equity_snapshots FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();

CREATE TRIGGER wallets_book_truncated AFTER TRUNCATE ON wallets FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER holdings_book_truncated AFTER TRUNCATE ON holdings FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER spot_orders_book_truncated AFTER TRUNCATE ON spot_orders FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER futures_positions_book_truncated AFTER TRUNCATE ON futures_positions FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER pm_positions_book_truncated AFTER TRUNCATE ON pm_positions FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER closed_trades_book_truncated AFTER TRUNCATE ON closed_trades FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER account_totals_book_truncated AFTER TRUNCATE ON account_totals FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER account_venue_totals_book_truncated AFTER TRUNCATE ON account_venue_totals FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER equity_snapshots_book_truncated AFTER TRUNCATE ON equity_snapshots FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
