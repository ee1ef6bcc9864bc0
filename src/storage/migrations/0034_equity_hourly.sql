-- The equity of the last day or so, one value per key and hour (each hour keeps its last value):
-- the portfolio's 24 h PnL compares with the equity of 24 h ago. From the daily snapshots alone
-- it compared with the end of yesterday, so at 00:05 UTC "24 h" covered 5 minutes.
CREATE TABLE equity_snapshots_hourly (
  key_id integer NOT NULL REFERENCES api_keys(id),
  hour timestamptz NOT NULL,
  usd_value numeric NOT NULL,
  taken_at timestamptz NOT NULL,
  PRIMARY KEY (key_id, hour)
);

-- Set-wide writes, as equity_snapshots (0017): account reads cached in process start over.
CREATE TRIGGER equity_snapshots_hourly_book_changed AFTER INSERT OR UPDATE OR DELETE ON equity_snapshots_hourly FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER equity_snapshots_hourly_book_truncated AFTER TRUNCATE ON equity_snapshots_hourly FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
