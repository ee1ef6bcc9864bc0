-- Fewer statements per trade write (issue 11), measured with pg_stat_statements (track = all):
-- - The idempotency record was inserted before the effects and updated with the answer after
--   them (two writes of one row, ~200 µs per order on PostgreSQL). Every writer of a key's
--   records is this function under the key's wallet lock (one wallet per key), so a look-up
--   under that lock sees any committed record, and the record is inserted once, finished.
-- - The book-signal triggers (0017) ran a PL/pgSQL function for every changed row, though a
--   key is signalled once per transaction (0018). A trade write changes only its own key's
--   rows: it signals its key itself, turns the signal off for its own writes and restores it
--   after them; the row triggers fire only while a signal mode is set (a WHEN clause costs no
--   function call), which also spares sessions that never asked for signals.

CREATE OR REPLACE FUNCTION paper_trade_write(plan jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_wallet integer := (plan->>'walletId')::integer;
  v_key integer := (plan->>'keyId')::integer;
  g jsonb := coalesce(plan->'guards', '{}'::jsonb);
  v_version text;
  v_ids jsonb := '{}'::jsonb;
  v_id bigint;
  e jsonb;
  idem jsonb := plan->'idempotency';
  v_response jsonb;
  v_row jsonb;
  v_signal text := current_setting('paper.book_signal', true);
BEGIN
  IF plan ? 'lockTimeoutMs' THEN
    PERFORM set_config('lock_timeout', (plan->>'lockTimeoutMs') || 'ms', true);
  END IF;
  -- the book first: every writer locks wallet, then its rows
  SELECT md5(w::text) INTO v_version FROM wallets w WHERE w.id = v_wallet AND w.key_id = v_key FOR UPDATE;
  IF v_version IS NULL THEN
    RAISE EXCEPTION 'paper_trade_write: wallet % of key % not found', v_wallet, v_key;
  END IF;
  IF g ? 'wallet' AND v_version IS DISTINCT FROM g->>'wallet' THEN
    RETURN jsonb_build_object('outcome', 'stale', 'row', 'wallet');
  END IF;
  IF g ? 'holding' THEN
    SELECT md5(h::text) INTO v_version FROM holdings h WHERE h.wallet_id = v_wallet AND h.coin_id = g->'holding'->>'coinId';
    IF NOT FOUND THEN v_version := NULL; END IF;
    IF v_version IS DISTINCT FROM g->'holding'->>'version' THEN
      RETURN jsonb_build_object('outcome', 'stale', 'row', 'holding');
    END IF;
  END IF;
  IF g ? 'spotOrder' THEN
    SELECT md5(o::text) INTO v_version FROM spot_orders o WHERE o.id = (g->'spotOrder'->>'id')::bigint FOR UPDATE;
    IF NOT FOUND THEN v_version := NULL; END IF;
    IF v_version IS DISTINCT FROM g->'spotOrder'->>'version' THEN
      RETURN jsonb_build_object('outcome', 'stale', 'row', 'spotOrder');
    END IF;
  END IF;
  IF g ? 'position' THEN
    IF g->'position' ? 'id' THEN
      SELECT md5(p::text) INTO v_version FROM futures_positions p WHERE p.id = (g->'position'->>'id')::bigint FOR UPDATE;
    ELSE
      SELECT md5(p::text) INTO v_version FROM futures_positions p
        WHERE p.key_id = v_key AND p.coin_id = g->'position'->>'coinId' AND p.status = 'open' FOR UPDATE;
    END IF;
    IF NOT FOUND THEN v_version := NULL; END IF;
    IF v_version IS DISTINCT FROM g->'position'->>'version' THEN
      RETURN jsonb_build_object('outcome', 'stale', 'row', 'position');
    END IF;
  END IF;

  IF idem IS NOT NULL THEN
    -- under the wallet lock: a record of this key committed before it is visible here
    SELECT jsonb_build_object('route', r.route, 'requestHash', r.request_hash, 'statusCode', r.status_code, 'response', r.response)
      INTO v_row FROM idempotency_records r WHERE r.key_id = v_key AND r.idempotency_key = idem->>'key';
    IF FOUND THEN
      RETURN jsonb_build_object('outcome', 'exists', 'record', v_row);
    END IF;
  END IF;

  -- every row written below is this key's: one signal for them all, the row triggers quiet
  PERFORM book_signal(v_key::text);
  IF v_signal <> '' THEN
    PERFORM set_config('paper.book_signal', '', true);
  END IF;

  IF plan ? 'newSpotOrder' THEN
    INSERT INTO spot_orders (key_id, wallet_id, coin_id, symbol, side, order_type, quantity, limit_price, stop_price, status,
                             frozen_amount, idempotency_key, checked_until, triggered_at, created_at, updated_at)
      SELECT v_key, v_wallet, r.coin_id, r.symbol, r.side, r.order_type, r.quantity, r.limit_price, r.stop_price, r.status,
             r.frozen_amount, r.idempotency_key, r.checked_until, r.triggered_at, r.created_at, r.updated_at
      FROM jsonb_populate_record(null::spot_orders, plan->'newSpotOrder') r
      RETURNING id INTO v_id;
    v_ids := v_ids || jsonb_build_object('order', v_id);
  END IF;

  IF plan ? 'newPosition' THEN
    INSERT INTO futures_positions (key_id, wallet_id, coin_id, symbol, coin_name, side, status, leverage, entry_price, margin, size_coin,
                                   maintenance_margin_rate, liquidation_price, open_fees_unrealized, stop_loss_price, take_profit_price,
                                   freshness_at_entry, idempotency_key, opened_at, created_at, updated_at)
      SELECT v_key, v_wallet, r.coin_id, r.symbol, r.coin_name, r.side, r.status, r.leverage, r.entry_price, r.margin, r.size_coin,
             r.maintenance_margin_rate, r.liquidation_price, r.open_fees_unrealized, r.stop_loss_price, r.take_profit_price,
             r.freshness_at_entry, r.idempotency_key, r.opened_at, r.created_at, r.updated_at
      FROM jsonb_populate_record(null::futures_positions, plan->'newPosition') r
      RETURNING id INTO v_id;
    v_ids := v_ids || jsonb_build_object('position', v_id);
  END IF;

  -- other new rows, by column name: {table, row, as (the name its id is referred to by)}. Static
  -- statements (planned once per session): every column but id, an absent key is NULL, which is
  -- what omitting it gave (neither table has a default but its identity id). A column added to
  -- either table must be added here.
  FOR e IN SELECT x.value FROM jsonb_array_elements(coalesce(plan->'rows', '[]'::jsonb)) AS x(value) LOOP
    v_row := paper_resolve_refs(e->'row', v_ids);
    IF e->>'table' = 'pm_positions' THEN
      INSERT INTO pm_positions (key_id, wallet_id, source, event_slug, event_title, outcome_external_id, outcome_label, side, fill_basis,
        entry_probability, fill_probability, entry_prob_sum, stake_musd, shares_musd, fee_musd, shape, markets_count,
        entry_outcomes_snapshot, freshness_at_entry, event_status_at_entry, status, settlement_state, void_reason,
        payout_musd, pnl_musd, opened_at, settled_at, created_at, updated_at)
        SELECT r.key_id, r.wallet_id, r.source, r.event_slug, r.event_title, r.outcome_external_id, r.outcome_label, r.side,
          r.fill_basis, r.entry_probability, r.fill_probability, r.entry_prob_sum, r.stake_musd, r.shares_musd,
          r.fee_musd, r.shape, r.markets_count, r.entry_outcomes_snapshot, r.freshness_at_entry, r.event_status_at_entry,
          r.status, r.settlement_state, r.void_reason, r.payout_musd, r.pnl_musd, r.opened_at, r.settled_at,
          r.created_at, r.updated_at
        FROM jsonb_populate_record(null::pm_positions, v_row) r RETURNING id INTO v_id;
    ELSIF e->>'table' = 'arena_decisions' THEN
      INSERT INTO arena_decisions (decision_uuid, schema_version, opportunity_kind, reason_code, result, evaluation_policy_version,
        execution_policy_version, key_id, agent, agent_model, venue, event_title, event_slug, event_id, side,
        chosen_outcome, agent_forecast_probability, thesis, market_probability, reference_probability,
        reference_venue_count, edge_points, run_id, client_decision_id, decision_context, provenance, outcomes_count,
        stake_musd, shares_musd, position_id, created_at, content_hash, content_hash_fields, settlement_label,
        settled_at, pnl_musd, brier, agent_brier)
        SELECT r.decision_uuid, r.schema_version, r.opportunity_kind, r.reason_code, r.result, r.evaluation_policy_version,
          r.execution_policy_version, r.key_id, r.agent, r.agent_model, r.venue, r.event_title, r.event_slug, r.event_id,
          r.side, r.chosen_outcome, r.agent_forecast_probability, r.thesis, r.market_probability,
          r.reference_probability, r.reference_venue_count, r.edge_points, r.run_id, r.client_decision_id,
          r.decision_context, r.provenance, r.outcomes_count, r.stake_musd, r.shares_musd, r.position_id, r.created_at,
          r.content_hash, r.content_hash_fields, r.settlement_label, r.settled_at, r.pnl_musd, r.brier, r.agent_brier
        FROM jsonb_populate_record(null::arena_decisions, v_row) r RETURNING id INTO v_id;
    ELSE
      RAISE EXCEPTION 'paper_trade_write: rows of % are not written here', e->>'table';
    END IF;
    IF e ? 'as' THEN v_ids := v_ids || jsonb_build_object(e->>'as', v_id); END IF;
  END LOOP;

  IF plan ? 'trade' THEN
    INSERT INTO closed_trades (key_id, wallet_id, venue, side, coin_id, symbol, market, outcome, realized_pnl, closed_at, ref_type, ref_id, detail)
      SELECT v_key, v_wallet, r.venue, r.side, r.coin_id, r.symbol, r.market, r.outcome, r.realized_pnl, r.closed_at, r.ref_type, r.ref_id,
             coalesce(r.detail, '{}'::jsonb)
      FROM jsonb_populate_record(null::closed_trades, paper_resolve_refs(plan->'trade', v_ids)) r
      RETURNING id INTO v_id;
    v_ids := v_ids || jsonb_build_object('trade', v_id);
  END IF;

  IF plan ? 'spotOrderUpdate' THEN
    e := paper_resolve_refs(plan->'spotOrderUpdate', v_ids);
    UPDATE spot_orders o SET (status, updated_at, closed_at, triggered_at, checked_until, fill_trade_id) =
      (SELECT r.status, r.updated_at, r.closed_at, r.triggered_at, r.checked_until, r.fill_trade_id FROM jsonb_populate_record(o, e) r)
    WHERE o.id = (e->>'id')::bigint;
  END IF;

  IF plan ? 'positionUpdate' THEN
    e := plan->'positionUpdate';
    UPDATE futures_positions p SET (status, entry_price, margin, size_coin, liquidation_price, open_fees_unrealized, stop_loss_price,
                                    take_profit_price, exit_price, exit_reason, realized_pnl, closed_at, updated_at) =
      (SELECT r.status, r.entry_price, r.margin, r.size_coin, r.liquidation_price, r.open_fees_unrealized, r.stop_loss_price,
              r.take_profit_price, r.exit_price, r.exit_reason, r.realized_pnl, r.closed_at, r.updated_at
       FROM jsonb_populate_record(p, e) r)
    WHERE p.id = (e->>'id')::bigint;
  END IF;

  IF jsonb_array_length(coalesce(plan->'cash', '[]'::jsonb)) > 0 THEN
    UPDATE wallets w SET
      cash_available = w.cash_available + d.available,
      cash_frozen = w.cash_frozen + d.frozen,
      cash_frozen_pm = w.cash_frozen_pm + d.frozen_pm,
      cash_frozen_futures = w.cash_frozen_futures + d.frozen_futures
    FROM (
      SELECT coalesce(sum(c.amount) FILTER (WHERE c.bucket = 'available'), 0) AS available,
             coalesce(sum(c.amount) FILTER (WHERE c.bucket = 'frozen'), 0) AS frozen,
             coalesce(sum(c.amount) FILTER (WHERE c.bucket = 'frozenPm'), 0) AS frozen_pm,
             coalesce(sum(c.amount) FILTER (WHERE c.bucket = 'frozenFutures'), 0) AS frozen_futures
      FROM jsonb_to_recordset(plan->'cash') AS c(bucket text, amount numeric)
    ) d
    WHERE w.id = v_wallet;
    INSERT INTO journal_postings (wallet_id, coin_id, bucket, amount, reason, ref_type, ref_id)
      SELECT v_wallet, '825', c.bucket, c.amount, c.reason, c.ref_type, c.ref_id
      FROM jsonb_array_elements(plan->'cash') AS x(value)
      CROSS JOIN LATERAL jsonb_to_record(paper_resolve_refs(x.value, v_ids)) AS c(bucket text, amount numeric, reason text, ref_type text, ref_id text);
  END IF;

  FOR e IN SELECT paper_resolve_refs(x.value, v_ids) FROM jsonb_array_elements(coalesce(plan->'holdings', '[]'::jsonb)) AS x(value) LOOP
    -- update first: an insert's row is CHECKed before ON CONFLICT, so a negative delta cannot upsert
    UPDATE holdings h SET
      available = h.available + (e->>'available')::numeric,
      frozen = h.frozen + (e->>'frozen')::numeric,
      avg_cost_usd = coalesce((e->>'avg_cost_usd')::numeric, h.avg_cost_usd),
      updated_at = (e->>'updated_at')::timestamptz
    WHERE h.wallet_id = v_wallet AND h.coin_id = e->>'coin_id';
    IF NOT FOUND THEN
      INSERT INTO holdings (wallet_id, coin_id, available, frozen, avg_cost_usd, updated_at)
        VALUES (v_wallet, e->>'coin_id', (e->>'available')::numeric, (e->>'frozen')::numeric,
                coalesce((e->>'avg_cost_usd')::numeric, 0), (e->>'updated_at')::timestamptz);
    END IF;
    INSERT INTO journal_postings (wallet_id, coin_id, bucket, amount, reason, ref_type, ref_id)
      SELECT v_wallet, e->>'coin_id', b.bucket, b.amount, e->>'reason', e->>'ref_type', e->>'ref_id'
      FROM (VALUES ('available', (e->>'available')::numeric), ('frozen', (e->>'frozen')::numeric)) AS b(bucket, amount)
      WHERE b.amount <> 0;
  END LOOP;

  IF jsonb_array_length(coalesce(plan->'futuresEvents', '[]'::jsonb)) > 0 THEN
    INSERT INTO futures_events (position_id, key_id, type, size_delta_coin, mark_price, fill_price, realized_pnl, margin_delta, fee,
                                slippage, execution_version, idempotency_key, created_at)
      SELECT r.position_id, v_key, r.type, r.size_delta_coin, r.mark_price, r.fill_price, r.realized_pnl, r.margin_delta, r.fee,
             r.slippage, r.execution_version, r.idempotency_key, r.created_at
      FROM jsonb_array_elements(plan->'futuresEvents') AS x(value)
      CROSS JOIN LATERAL jsonb_populate_record(null::futures_events, paper_resolve_refs(x.value, v_ids)) r;
  END IF;

  IF idem IS NOT NULL THEN
    v_response := idem->'response';
    FOR e IN SELECT x.value FROM jsonb_array_elements(coalesce(idem->'idPaths', '[]'::jsonb)) AS x(value) LOOP
      v_response := jsonb_set(v_response, ARRAY(SELECT jsonb_array_elements_text(e->'path')), v_ids -> (e->>'from'));
    END LOOP;
    INSERT INTO idempotency_records (key_id, idempotency_key, route, request_hash, status_code, response)
      VALUES (v_key, idem->>'key', idem->>'route', idem->>'requestHash', (idem->>'statusCode')::integer, v_response);
  END IF;

  IF v_signal <> '' THEN
    PERFORM set_config('paper.book_signal', v_signal, true);
  END IF;
  RETURN jsonb_build_object('outcome', 'applied', 'ids', v_ids);
END
$$;

-- The row triggers of 0017, fired only while a signal mode is set. (The TRUNCATE and
-- equity_snapshots statement triggers are rare and stay as they are.)
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES ('wallets', 'book_changed_key'), ('holdings', 'book_changed_wallet'),
      ('spot_orders', 'book_changed_key'), ('futures_positions', 'book_changed_key'), ('pm_positions', 'book_changed_key'),
      ('closed_trades', 'book_changed_key'), ('account_totals', 'book_changed_key'), ('account_venue_totals', 'book_changed_key'))
      AS v(tbl, fn) LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', t.tbl || '_book_changed', t.tbl);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW '
                   'WHEN (current_setting(''paper.book_signal'', true) <> '''') EXECUTE FUNCTION %I()',
                   t.tbl || '_book_changed', t.tbl, t.fn);
  END LOOP;
END
$$;
