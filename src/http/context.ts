import type { Config } from '../config/env.js';
import type { Scope } from '../domain/api-keys.js';
import type { Database } from '../storage/db.js';
import type { RateLimitStore } from '../ratelimit/store.js';
import type { Clock } from '../util/clock.js';
import type { LedgerWriter } from '../ledger/writer.js';
import type { FailedKeyLookups } from '../ratelimit/key-lookups.js';
import type { KeyCache } from '../services/key-cache.js';
import type { MarketFeed } from '../marketdata/feed.js';
import type { MarketReads } from '../marketdata/reads.js';
import type { RelatedMarket } from '../pm/api.js';
import type { NewsSource } from '../news/types.js';

/** What every route and plugin may use; built once in buildApp. */
export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  /** Real time for the per-minute budgets: the service clock runs on tape time in replay mode. */
  budgetClock: Clock;
  rateLimits: RateLimitStore;
  ledger: LedgerWriter;
  keyCache: KeyCache;
  /** Unknown-key look-ups per address, refused past a limit (src/ratelimit/key-lookups.ts). */
  keyLookups: FailedKeyLookups;
  adminToken: string;
  /** Prices and coins for engines and routes (in-memory reads). */
  market: MarketFeed;
  /** Coin reads for the market routes; null where market data does not run (they answer 503). */
  marketReads: MarketReads | null;
  /** Up to 3 open prediction markets linked to a coin (market context `relatedMarkets`). */
  relatedMarkets?: (coinId: string) => Promise<RelatedMarket[]>;
  /** The news source (agent news, PM event `relatedNews`); null where market data does not run. */
  news(): NewsSource | null;
}

export interface AuthedKey {
  keyId: number;
  userId: string;
  scopes: Scope[];
  agentName: string | null;
  agentModel: string | null;
}

export interface TraceFields {
  runId: string | null;
  decisionId: string | null;
  strategyLabel: string | null;
  confidence: number | null;
  rationaleSummary: string | null;
}

/** What a handler tells the ledger about its call, beyond method, path and status. */
export interface LedgerNote {
  ledgerStatus?: 'idempotent_replay';
  idempotencyKey?: string | null;
  relatedEntityType?: string;
  relatedEntityId?: string | number;
  blockReasons?: string[];
  venue?: string | null;
  observation?: unknown;
  /**
   * The instrument a write names through the entity it acts on (a futures close or SL/TP names a
   * position: its coin); stored as the request summary's `instrument`, so it counts as quoted
   * after a quote of that coin like an open does.
   */
  instrument?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every /api/agent/* route: the scope it needs, or 'any' for any valid key. */
    scope?: Scope | 'any';
    /** Counts against the trade-write budget as well as the baseline. */
    tradeWrite?: boolean;
    /** Ledger classification of the route. */
    ledger?: { eventType: 'read' | 'quote' | 'write' | 'cancel' | 'report'; venue?: string | null };
    /** Keyless public route with a per-IP budget. */
    publicRate?: boolean;
    /** Answers 200 with an ETag; a request whose If-None-Match names it gets 304 (published in the OpenAPI document). */
    conditional?: boolean;
    /** A test-only route (AppDeps.extraRoutes): no published response schema to check against. */
    unpublished?: boolean;
  }
  interface FastifyRequest {
    agentKey?: AuthedKey;
    trace?: TraceFields;
    ledgerNote?: LedgerNote;
    startedAtMs?: number;
    /** Set only for in-process calls an MCP tool makes (src/mcp/internal-channel.ts); REST calls leave it unset. */
    ledgerChannel?: 'mcp';
    /** The response as the handler built it (before serialization), for the ledger summary. */
    ledgerResponse?: unknown;
    /** `sanitize(ledgerResponse)`, when the route made it already (a cached answer's summary). */
    ledgerSummary?: unknown;
  }
}
