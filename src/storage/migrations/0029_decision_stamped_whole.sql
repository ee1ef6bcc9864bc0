-- A decision's settlement is stamped once and whole (docs/arena.md): the update that settles it
-- sets its label and time with the PnL and scores. 0006's guard let pnl_musd, brier or
-- agent_brier be written (and rewritten) on a decision still unsettled.
CREATE OR REPLACE FUNCTION arena_decisions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'decision records are immutable' USING ERRCODE = 'check_violation'; --
  END IF; --
  IF OLD.settlement_label IS NOT NULL OR OLD.opportunity_kind <> 'opened' THEN
    RAISE EXCEPTION 'decision % is already settled or cannot settle', OLD.decision_uuid USING ERRCODE = 'check_violation'; --
  END IF; --
  IF NEW.settlement_label IS NULL OR NEW.settled_at IS NULL THEN
    RAISE EXCEPTION 'decision % changes only by its settlement, label and time included', OLD.decision_uuid USING ERRCODE = 'check_violation'; --
  END IF; --
  IF (to_jsonb(NEW) - 'settlement_label' - 'settled_at' - 'pnl_musd' - 'brier' - 'agent_brier')
     IS DISTINCT FROM (to_jsonb(OLD) - 'settlement_label' - 'settled_at' - 'pnl_musd' - 'brier' - 'agent_brier') THEN
    RAISE EXCEPTION 'decision % fields are immutable', OLD.decision_uuid USING ERRCODE = 'check_violation'; --
  END IF; --
  RETURN NEW; --
END
$$;
