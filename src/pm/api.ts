/**
 * Small functions other parts of the service use (market context, PM paper trading).
 * Probabilities: `relatedMarketsForCoin` gives 0..1 fractions (supplement 0.2),
 * `readVenueMarket` gives 0..100 points like every PM trading surface.
 */
import { pmFreshness, type Freshness } from '../domain/freshness.js';
import type { Database } from '../storage/db.js';
import { loadPmMarket, publishPmStreamEvent, resolvePmMarket, type PmMarketRow } from '../storage/pm-repo.js';
import type { Clock } from '../util/clock.js';
import { decisionSupport, type DecisionSupport } from './decision-support.js';
import { pmReadModel } from './read-model.js';
import { leaderIndex } from './spark.js';
import type { OutcomeQuote } from './types.js';
import { spreadOf } from './views.js';
import { venueById } from './venues.js';

export interface RelatedMarket {
  source: string;
  title: string;
  slug: string;
  /** the leading outcome's name */
  outcome: string;
  /** 0..1 fraction */
  probability: number;
  volume24h: number;
  liquidity: number;
  decisionSupport: DecisionSupport;
}

const relatedMemo = new WeakMap<object, Map<string, RelatedMarket[]>>();

/**
 * Up to `limit` (default 3) open markets directly about the coin (e.g. '1' = BTC), most
 * liquid first; reads the cached PM snapshot (a few seconds old at most).
 */
export async function relatedMarketsForCoin(database: Database, clock: Clock, coinId: string, limit = 3): Promise<RelatedMarket[]> {
  const snap = await pmReadModel(database, clock).snapshot();
  // Built once per snapshot and coin (the same array until the snapshot changes, so callers
  // may cache on its identity); decision support is as of the first read of the snapshot.
  let byCoin = relatedMemo.get(snap);
  if (!byCoin) relatedMemo.set(snap, (byCoin = new Map()));
  const memoKey = `${coinId}|${limit}`;
  const hit = byCoin.get(memoKey);
  if (hit) return hit;
  const now = clock.now();
  const related = snap.rows
    .filter((r) => r.status === 'open' && (r.coinIds as string[]).includes(coinId))
    .sort((a, b) => b.liquidity - a.liquidity || b.volume24h - a.volume24h || a.slug.localeCompare(b.slug))
    .slice(0, limit)
    .map((r) => {
      const o = r.outcomes as OutcomeQuote[];
      const li = leaderIndex(r, o.map((x) => x.probability));
      const { spread } = spreadOf(r);
      return {
        source: r.source,
        title: r.title,
        slug: r.slug,
        outcome: o[li]!.name,
        probability: Math.round(o[li]!.probability * 10) / 1000,
        volume24h: r.volume24h,
        liquidity: r.liquidity,
        decisionSupport: decisionSupport({ spreadPoints: spread, liquidity: r.liquidity, volume24h: r.volume24h, leaderProbability: o[li]!.probability, endAtMs: r.endAt?.getTime() ?? null, nowMs: now }),
      };
    });
  byCoin.set(memoKey, related);
  return related;
}

export interface VenueMarketRead {
  /** internal integer event id (reference `eventId`) */
  eventId: number;
  source: string;
  sourceName: string;
  supportsTrading: boolean;
  slug: string;
  title: string;
  kind: 'binary' | 'multi';
  status: 'open' | 'closed';
  endAt: string | null;
  outcomes: { externalMarketId: string; name: string; probability: number; bid: number | null; ask: number | null }[];
  /** leading outcome's ask − bid, in points; null when unquoted */
  spread: number | null;
  liquidity: number;
  volume: number;
  volume24h: number;
  lastCaptureAt: string | null;
  lastIngestAt: string | null;
  freshness: Freshness;
  resolution: { state: 'resolved' | 'voided'; winnerExternalMarketId: string | null; winnerName: string | null; resolvedAt: string; resolvedAtVerified: boolean } | null;
}

/** One venue market straight from the database (not the cached snapshot): what PM trading prices and settles from. */
export async function readVenueMarket(database: Database, clock: Clock, source: string, slug: string): Promise<VenueMarketRead | null> {
  const r = await loadPmMarket(database.db, source, slug);
  return r ? venueMarketOf(r, clock.now()) : null;
}

/** The trading view of a stored market row, freshness as of `nowMs`. */
export function venueMarketOf(r: PmMarketRow, nowMs: number): VenueMarketRead {
  const o = r.outcomes as OutcomeQuote[];
  const venue = venueById(r.source)!;
  return {
    eventId: r.eventId,
    source: r.source,
    sourceName: venue.name,
    supportsTrading: venue.supportsTrading,
    slug: r.slug,
    title: r.title,
    kind: r.kind as 'binary' | 'multi',
    status: r.status as 'open' | 'closed',
    endAt: r.endAt?.toISOString() ?? null,
    outcomes: o.map((x) => ({ externalMarketId: x.externalMarketId, name: x.name, probability: x.probability, bid: x.bid, ask: x.ask })),
    spread: spreadOf(r).spread,
    liquidity: r.liquidity,
    volume: r.volume,
    volume24h: r.volume24h,
    lastCaptureAt: r.lastCaptureAt?.toISOString() ?? null,
    lastIngestAt: r.updatedAt.toISOString(),
    freshness: pmFreshness(r.lastCaptureAt?.getTime() ?? null, nowMs),
    resolution:
      r.resolutionState && r.resolvedAt
        ? {
            state: r.resolutionState as 'resolved' | 'voided',
            winnerExternalMarketId: r.winnerExternalId,
            winnerName: o.find((x) => x.externalMarketId === r.winnerExternalId)?.name ?? null,
            resolvedAt: r.resolvedAt.toISOString(),
            resolvedAtVerified: r.resolvedAtVerified,
          }
        : null,
  };
}

/**
 * Test and operator hook: settles a market now as the venue would (winner or void), and
 * pushes the SSE `resolution` event. A stored resolution is final, so this returns false
 * when the market was already resolved (or does not exist).
 */
export async function forcePmResolution(
  database: Database,
  clock: Clock,
  input: { source: string; slug: string; winnerExternalMarketId: string | null },
): Promise<boolean> {
  const now = clock.now();
  const row = await loadPmMarket(database.db, input.source, input.slug);
  if (!row) return false;
  const outcomes = row.outcomes as OutcomeQuote[];
  if (input.winnerExternalMarketId !== null && !outcomes.some((o) => o.externalMarketId === input.winnerExternalMarketId)) {
    throw new Error(`unknown outcome ${input.winnerExternalMarketId}`);
  }
  const state = input.winnerExternalMarketId === null ? 'voided' : 'resolved';
  const done = await resolvePmMarket(database.db, {
    source: input.source,
    slug: input.slug,
    state,
    winnerExternalId: input.winnerExternalMarketId,
    resolvedAtMs: now,
    verified: true,
    basis: 'source',
  });
  if (done) {
    pmReadModel(database, clock).invalidate();
    await publishPmStreamEvent(
      database.db,
      'resolution',
      {
        at: new Date(now).toISOString(),
        resolutions: [{ source: row.source, slug: row.slug, title: row.title, resolutionState: state, resolvedAt: new Date(now).toISOString() }],
      },
      now,
    );
  }
  return done;
}

export interface AgentsTradingMarket {
  openPositions: number;
  agents: { handle: string; agentName: string | null; model: string | null; side: string; chosenOutcome: string; openedAt: string }[];
}
type AgentsTradingProvider = (database: Database, source: string, slug: string) => Promise<AgentsTradingMarket>;
let agentsTradingProvider: AgentsTradingProvider | null = null;

/**
 * PM paper trading registers how to list the public agents holding a market; event detail
 * shows it as `agentsTradingMarket` (empty until a provider is registered).
 */
export function registerAgentsTradingMarket(provider: AgentsTradingProvider | null): void {
  agentsTradingProvider = provider;
}

export async function agentsTradingMarket(database: Database, source: string, slug: string): Promise<AgentsTradingMarket> {
  return agentsTradingProvider ? agentsTradingProvider(database, source, slug) : { openPositions: 0, agents: [] };
}
