-- Prediction-market research data: venue markets (latest state), our own captures,
-- large prints, per-venue ingest health and the SSE event log (issue 6).
create table pm_markets (
  source text not null,
  slug text not null,
  market_id text not null,
  title text not null,
  description text,
  category text not null,
  kind text not null,
  status text not null,
  outcomes jsonb not null,
  volume double precision not null default 0,
  volume24h double precision not null default 0,
  liquidity double precision not null default 0,
  price_change_24h double precision,
  price_change_7d double precision,
  start_at timestamptz,
  end_at timestamptz,
  closed_at timestamptz,
  resolution_state text,
  resolved_at timestamptz,
  resolved_at_verified boolean not null default false,
  winner_external_id text,
  resolution_basis text,
  rules text,
  settlement_source text,
  coin_ids jsonb not null default '[]',
  topics jsonb not null default '[]',
  final_probabilities jsonb,
  lead_probabilities jsonb,
  spark jsonb not null default '[]',
  canonical_key text,
  orientation text,
  match_confidence double precision,
  match_basis text,
  last_capture_at timestamptz,
  updated_at timestamptz not null,
  primary key (source, slug)
);
create index pm_markets_status on pm_markets (status);
create index pm_markets_resolved on pm_markets (resolved_at desc) where resolution_state is not null;
create index pm_markets_canonical on pm_markets (canonical_key) where canonical_key is not null;

create table pm_captures (
  source text not null,
  slug text not null,
  captured_at timestamptz not null,
  probabilities jsonb not null,
  leader_p double precision not null,
  volume double precision not null,
  volume24h double precision not null,
  liquidity double precision not null,
  primary key (source, slug, captured_at)
);

create table pm_whale_trades (
  id text primary key,
  source text not null,
  slug text not null,
  title text not null,
  wallet text,
  trader_name text,
  side text not null,
  outcome text not null,
  usd_value double precision not null,
  price double precision not null,
  traded_at timestamptz not null,
  observed_at timestamptz not null,
  evidence_type text not null,
  evidence_ref text,
  evidence_url text
);
create index pm_whale_trades_recent on pm_whale_trades (traded_at desc);
create index pm_whale_trades_market on pm_whale_trades (source, slug, traded_at desc);

create table pm_venue_health (
  source text primary key,
  mode text not null,
  last_attempt_at timestamptz,
  last_success_at timestamptz,
  last_error text,
  consecutive_failures integer not null default 0
);

create table pm_stream_events (
  id bigint generated always as identity primary key,
  kind text not null,
  payload jsonb not null,
  created_at timestamptz not null
);
