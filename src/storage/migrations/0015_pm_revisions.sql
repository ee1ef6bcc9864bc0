-- Append-only corrections of public PM facts (reference: events/{source}/{slug}/revisions).
-- A trigger on pm_markets records every change of a tracked fact, so no writer can forget it;
-- rows are never updated or deleted (a second trigger refuses both).
CREATE TABLE pm_revisions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source text NOT NULL,
  slug text NOT NULL,
  subject_key text NOT NULL,
  field text NOT NULL,
  prev_value jsonb,
  next_value jsonb,
  reason_code text NOT NULL,
  effective_at timestamptz,
  observed_at timestamptz NOT NULL,
  supersedes_id bigint
);
CREATE INDEX pm_revisions_subject_idx ON pm_revisions (source, slug, id DESC);

CREATE FUNCTION pm_revision_add(m pm_markets, f text, prev jsonb, nxt jsonb, reason text, effective timestamptz) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pm_revisions (source, slug, subject_key, field, prev_value, next_value, reason_code, effective_at, observed_at, supersedes_id)
  VALUES (m.source, m.slug, m.source || ':' || m.market_id, f, prev, nxt, reason, effective, m.updated_at,
    (SELECT max(id) FROM pm_revisions r WHERE r.source = m.source AND r.slug = m.slug AND r.field = f)); --
END
$$;

CREATE FUNCTION pm_markets_revise() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pm_revision_add(NEW, 'event', NULL, jsonb_build_object('title', NEW.title, 'status', NEW.status, 'endDate', NEW.end_at), 'created', NEW.start_at); --
    IF NEW.resolution_state IS NOT NULL THEN
      PERFORM pm_revision_add(NEW, 'resolution.winner', NULL, to_jsonb(NEW.winner_external_id), 'resolution_set', CASE WHEN NEW.resolved_at_verified THEN NEW.resolved_at END); --
    END IF; --
    IF NEW.canonical_key IS NOT NULL THEN
      PERFORM pm_revision_add(NEW, 'canonical.member', NULL, to_jsonb(NEW.canonical_key), 'member_added', NULL); --
    END IF; --
    RETURN NULL; --
  END IF; --
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    PERFORM pm_revision_add(NEW, 'status', to_jsonb(OLD.status), to_jsonb(NEW.status), 'resolution_state_changed', NEW.closed_at); --
  END IF; --
  IF NEW.resolution_state IS DISTINCT FROM OLD.resolution_state OR NEW.winner_external_id IS DISTINCT FROM OLD.winner_external_id THEN
    PERFORM pm_revision_add(NEW, 'resolution.winner', to_jsonb(OLD.winner_external_id), to_jsonb(NEW.winner_external_id),
      CASE WHEN NEW.resolution_state IS NULL THEN 'resolution_cleared'
           WHEN OLD.resolution_state IS NULL THEN 'resolution_set'
           ELSE 'resolution_reversal' END,
      CASE WHEN NEW.resolved_at_verified THEN NEW.resolved_at END); --
    PERFORM pm_revision_add(NEW, 'resolution.state', to_jsonb(OLD.resolution_state), to_jsonb(NEW.resolution_state), 'resolution_state_changed',
      CASE WHEN NEW.resolved_at_verified THEN NEW.resolved_at END); --
  ELSIF NEW.resolved_at IS DISTINCT FROM OLD.resolved_at THEN
    PERFORM pm_revision_add(NEW, 'resolution.resolvedAt', to_jsonb(OLD.resolved_at), to_jsonb(NEW.resolved_at), 'resolution_time_corrected', NULL); --
  END IF; --
  IF NEW.canonical_key IS DISTINCT FROM OLD.canonical_key THEN
    PERFORM pm_revision_add(NEW, 'canonical.member', to_jsonb(OLD.canonical_key), to_jsonb(NEW.canonical_key),
      CASE WHEN NEW.canonical_key IS NULL THEN 'member_removed' ELSE 'member_added' END, NULL); --
  ELSIF NEW.orientation IS DISTINCT FROM OLD.orientation THEN
    PERFORM pm_revision_add(NEW, 'canonical.orientation', to_jsonb(OLD.orientation), to_jsonb(NEW.orientation), 'orientation_changed', NULL); --
  END IF; --
  RETURN NULL; --
END
$$;

CREATE TRIGGER pm_markets_revisions_insert AFTER INSERT ON pm_markets FOR EACH ROW EXECUTE FUNCTION pm_markets_revise();
CREATE TRIGGER pm_markets_revisions_update AFTER UPDATE ON pm_markets FOR EACH ROW
  WHEN (NEW.status IS DISTINCT FROM OLD.status
     OR NEW.resolution_state IS DISTINCT FROM OLD.resolution_state
     OR NEW.winner_external_id IS DISTINCT FROM OLD.winner_external_id
     OR NEW.resolved_at IS DISTINCT FROM OLD.resolved_at
     OR NEW.canonical_key IS DISTINCT FROM OLD.canonical_key
     OR NEW.orientation IS DISTINCT FROM OLD.orientation)
  EXECUTE FUNCTION pm_markets_revise();

CREATE FUNCTION pm_revisions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'pm_revisions is append-only'; --
END
$$;
CREATE TRIGGER pm_revisions_guard BEFORE UPDATE OR DELETE ON pm_revisions FOR EACH ROW EXECUTE FUNCTION pm_revisions_append_only();

-- Markets stored before this migration get their 'created' revision now.
INSERT INTO pm_revisions (source, slug, subject_key, field, prev_value, next_value, reason_code, effective_at, observed_at)
SELECT source, slug, source || ':' || market_id, 'event', NULL, jsonb_build_object('title', title, 'status', status, 'endDate', end_at), 'created', start_at, updated_at
FROM pm_markets;
