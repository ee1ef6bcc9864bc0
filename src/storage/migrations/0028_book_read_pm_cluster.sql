-- The voting members of a PM market's cross-venue cluster (open, oriented to the anchor; the
-- market itself included), as one json array of what a vote needs (source, liquidity, status,
-- orientation, outcomes): a PM open records the cross-venue reference of the side it takes
-- (supplement 2.10, `referenceProbability` / `referenceVenueCount`), computed from them by the
-- same pure consensus as the public events (src/pm/read-model.ts). Read with the market in the
-- book read, so the open keeps its one read round trip; null when the market has no cluster.
-- Five fields, not whole rows: whole rows cost a PM open ~13 % of its rate on PGlite.
-- The rest of paper_book_read is 0024's, restated (a migration replaces a function whole).
-- Statements inside function bodies end with "; --" (see 0006_arena.sql).

CREATE OR REPLACE FUNCTION paper_pm_cluster(p_source text, p_slug text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT json_agg(json_build_object('source', o.source, 'liquidity', o.liquidity, 'status', o.status,
                                             'orientation', o.orientation, 'outcomes', o.outcomes))
          FROM pm_markets m JOIN pm_markets o ON o.canonical_key = m.canonical_key
          WHERE m.source = p_source AND m.slug = p_slug AND o.status = 'open'
            AND o.orientation IS NOT NULL AND o.orientation <> 'unknown'); --
END
$$;

CREATE OR REPLACE FUNCTION paper_book_read(req jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_key integer := (req->>'keyId')::integer; --
  v_created integer; --
  w wallets%ROWTYPE; --
  result jsonb; --
BEGIN
  FOR attempt IN 1..2 LOOP
    IF coalesce((req->>'lock')::boolean, false) THEN
      SELECT * INTO w FROM wallets WHERE key_id = v_key FOR UPDATE; --
    ELSE
      SELECT * INTO w FROM wallets WHERE key_id = v_key; --
    END IF; --
    EXIT WHEN FOUND; --
    -- first use: create and fund the book (concurrent first uses fund it once)
    INSERT INTO wallets (key_id, cash_available) VALUES (v_key, (req->>'startingCash')::numeric)
      ON CONFLICT (key_id) DO NOTHING RETURNING id INTO v_created; --
    IF v_created IS NOT NULL THEN
      INSERT INTO journal_postings (wallet_id, coin_id, bucket, amount, reason)
        VALUES (v_created, '825', 'available', (req->>'startingCash')::numeric, 'funding'); --
    END IF; --
  END LOOP; --
  result := jsonb_build_object('wallet', jsonb_build_object('id', w.id, 'key_id', w.key_id,
    'cash_available', w.cash_available::text, 'cash_frozen', w.cash_frozen::text, 'cash_frozen_pm', w.cash_frozen_pm::text,
    'cash_frozen_futures', w.cash_frozen_futures::text, 'version', md5(w::text))); --
  IF req ? 'coinId' THEN
    result := result || jsonb_build_object('holding',
      (SELECT jsonb_build_object('available', h.available::text, 'frozen', h.frozen::text, 'avg_cost_usd', h.avg_cost_usd::text,
                                 'version', md5(h::text))
       FROM holdings h WHERE h.wallet_id = w.id AND h.coin_id = req->>'coinId')); --
  END IF; --
  IF req ? 'idempotencyKey' THEN
    result := result || jsonb_build_object('idempotency',
      (SELECT jsonb_build_object('route', r.route, 'requestHash', r.request_hash, 'statusCode', r.status_code, 'response', r.response)
       FROM idempotency_records r WHERE r.key_id = v_key AND r.idempotency_key = req->>'idempotencyKey')); --
  END IF; --
  IF req ? 'spotOrderId' THEN
    result := result || jsonb_build_object('spotOrder',
      (SELECT paper_row_json(to_jsonb(o)) || jsonb_build_object('version', md5(o::text))
       FROM spot_orders o WHERE o.id = (req->>'spotOrderId')::bigint AND o.key_id = v_key)); --
  END IF; --
  IF req ? 'positionId' THEN
    result := result || jsonb_build_object('position',
      (SELECT paper_row_json(to_jsonb(p)) || jsonb_build_object('version', md5(p::text))
       FROM futures_positions p WHERE p.id = (req->>'positionId')::bigint AND p.key_id = v_key)); --
  ELSIF req ? 'openPositionCoinId' THEN
    result := result || jsonb_build_object('position',
      (SELECT paper_row_json(to_jsonb(p)) || jsonb_build_object('version', md5(p::text))
       FROM futures_positions p WHERE p.key_id = v_key AND p.coin_id = req->>'openPositionCoinId' AND p.status = 'open')); --
  END IF; --
  IF req ? 'pmMarket' THEN
    result := result || jsonb_build_object('pmMarket',
      paper_pm_market(req->'pmMarket'->>'source', req->'pmMarket'->>'slug'),
      'pmCluster', paper_pm_cluster(req->'pmMarket'->>'source', req->'pmMarket'->>'slug')); --
  END IF; --
  RETURN result; --
END
$$;
