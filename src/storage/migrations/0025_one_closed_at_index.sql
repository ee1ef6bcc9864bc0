-- closed_trades had two indexes on closed_at: closed_trades_closed_idx (0002, rows with a
-- realized PnL) and arena_closed_trades_closed_at_idx (0006, every row, the rolling boards).
-- Every read of realized rows now names its key and uses closed_trades_key_closed_idx, so the
-- partial index only cost an index insertion per decided trade (issue 11).
DROP INDEX IF EXISTS closed_trades_closed_idx;
