/**
 * The per-process read model of the public PM data: every stored market with its cluster
 * and consensus, rebuilt from the database at most every few seconds (single flight), so
 * public reads are in-memory filters over one snapshot.
 */
import { complementPoints } from '../domain/pm/pricing.js';
import type { Database } from '../storage/db.js';
import { loadPmMarkets, pmMarketsVersion, venueHealth, type ClusterMember, type PmMarketRow } from '../storage/pm-repo.js';
import type { Clock } from '../util/clock.js';
import { weightedMedian, type Voice } from './consensus.js';
import { leaderIndex } from './spark.js';
import type { OutcomeQuote } from './types.js';
import { eventObject, referenceOf, type Money, type ReferenceProbability } from './views.js';
import { venueById } from './venues.js';

export const SNAPSHOT_TTL_MS = 5_000;
/** Rebuilt at least this often even when no row changed (freshness ages). */
const SNAPSHOT_MAX_AGE_MS = 60_000;

export interface PmSnapshot {
  builtAtMs: number;
  checkedAtMs: number;
  version: string;
  rows: PmMarketRow[];
  byKey: Map<string, PmMarketRow>;
  clusters: Map<string, PmMarketRow[]>;
  refs: Map<string, ReferenceProbability | null>;
  /** USD event objects, built once per snapshot. */
  events: Map<string, Record<string, unknown>>;
  health: Map<string, { lastSuccessAt: Date | null; lastError: string | null; mode: string }>;
}

export const keyOf = (r: { source: string; slug: string }) => `${r.source}/${r.slug}`;
const normName = (n: string) => n.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

/** Orientation of b relative to a, both given relative to the cluster anchor. */
export function relativeOrientation(a: string | null, b: string | null): 'same' | 'flipped' | 'unknown' {
  if (!a || !b || a === 'unknown' || b === 'unknown') return 'unknown';
  return a === b ? 'same' : 'flipped';
}

type Consensus = NonNullable<ReturnType<typeof weightedMedian>>;

/** Members that vote: open, with a known orientation to the cluster anchor. */
const voters = (members: ClusterMember[]) => members.filter((m) => m.status === 'open' && m.orientation && m.orientation !== 'unknown');

/**
 * Consensus (0..100) for one of `target`'s outcomes across its cluster, oriented to `target`;
 * null when `target` cannot be oriented or fewer than 2 venues vote. Binary members vote their
 * first outcome (flipped ones 100 − p); multi members vote the outcome of the same name.
 */
function outcomeConsensus(target: PmMarketRow, members: ClusterMember[], index: number): Consensus | null {
  if (target.status !== 'open' || !target.orientation || target.orientation === 'unknown') return null;
  const outcomes = target.outcomes as OutcomeQuote[];
  if (target.kind === 'binary') {
    const voices: Voice[] = voters(members).map((m) => {
      const p = (m.outcomes as OutcomeQuote[])[0]!.probability;
      return { source: m.source, liquidity: m.liquidity, probability: m.orientation === 'flipped' ? 100 - p : p };
    });
    const r = weightedMedian(voices);
    if (!r) return null;
    const yes = target.orientation === 'flipped' ? 100 - r.probability : r.probability;
    return { ...r, probability: index === 0 ? yes : 100 - yes };
  }
  const name = normName(outcomes[index]!.name);
  const voices: Voice[] = [];
  for (const m of voters(members)) {
    const match = (m.outcomes as OutcomeQuote[]).find((x) => normName(x.name) === name);
    if (match) voices.push({ source: m.source, liquidity: m.liquidity, probability: match.probability });
  }
  return weightedMedian(voices);
}

/** Binary consensus is published to one decimal, as the event's own probabilities. */
const tenth = (p: number) => Math.round(p * 10) / 10;

/** Consensus for the leading outcome of `target` across its open cluster members. */
export function referenceFor(target: PmMarketRow, members: PmMarketRow[], nowMs: number): ReferenceProbability | null {
  const outcomes = target.outcomes as OutcomeQuote[];
  if (target.kind === 'binary') {
    const yes = outcomeConsensus(target, members, 0);
    if (!yes) return null;
    const leadYes = yes.probability >= 50;
    return referenceOf(tenth(leadYes ? yes.probability : 100 - yes.probability), yes.venueCount, yes.spreadPoints, outcomes[leadYes ? 0 : 1]!.name, 'binary', nowMs);
  }
  let best: (Consensus & { name: string }) | null = null;
  for (let i = 0; i < outcomes.length; i++) {
    const r = outcomeConsensus(target, members, i);
    if (r && (!best || r.probability > best.probability)) best = { name: outcomes[i]!.name, ...r };
  }
  return best ? referenceOf(best.probability, best.venueCount, best.spreadPoints, best.name, 'leader', nowMs) : null;
}

/**
 * The cross-venue reference for the side an agent takes (supplement 2.10: a decision's
 * `referenceProbability`, on the scale of its `marketProbability`): the consensus for the
 * chosen outcome, 100 − it for the NO side; null outside a ≥ 2-venue cluster.
 */
export function chosenSideReference(
  target: PmMarketRow,
  members: ClusterMember[],
  outcomeExternalMarketId: string,
  side: 'yes' | 'no',
): { probability: number; venueCount: number } | null {
  const index = (target.outcomes as OutcomeQuote[]).findIndex((o) => o.externalMarketId === outcomeExternalMarketId);
  const r = index < 0 ? null : outcomeConsensus(target, members, index);
  if (!r) return null;
  const outcome = target.kind === 'binary' ? tenth(r.probability) : r.probability;
  return { probability: side === 'yes' ? outcome : complementPoints(outcome), venueCount: r.venueCount };
}

/** Other venues' markets of the same canonical event, oriented relative to `target`. */
export function crossSourceMatches(target: PmMarketRow, members: PmMarketRow[]): Record<string, unknown>[] {
  return members
    .filter((m) => keyOf(m) !== keyOf(target))
    .map((m) => {
      const orientation = relativeOrientation(target.orientation, m.orientation);
      const o = m.outcomes as OutcomeQuote[];
      let probability: number | null = null;
      if (target.kind === 'binary' && orientation !== 'unknown') probability = orientation === 'flipped' ? Math.round((100 - o[0]!.probability) * 10) / 10 : o[0]!.probability;
      if (target.kind === 'multi' && orientation === 'same') {
        const t = target.outcomes as OutcomeQuote[];
        const lead = t[leaderIndex(target, t.map((x) => x.probability))]!;
        probability = o.find((x) => normName(x.name) === normName(lead.name))?.probability ?? null;
      }
      return {
        source: m.source,
        sourceName: venueById(m.source)?.name ?? m.source,
        eventSlug: m.slug,
        eventTitle: m.title,
        eventStatus: m.status,
        orientation,
        confidence: m.matchConfidence,
        basis: m.matchBasis,
        probability,
        isAnchor: m.matchBasis === 'anchor',
      };
    });
}

export class PmReadModel {
  private current: PmSnapshot | null = null;
  private building: Promise<PmSnapshot> | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly ttlMs = SNAPSHOT_TTL_MS,
  ) {}

  invalidate(): void {
    this.current = null;
  }

  async snapshot(): Promise<PmSnapshot> {
    const now = this.clock.now();
    const cur = this.current;
    if (cur && Math.abs(now - cur.checkedAtMs) < this.ttlMs) return cur;
    if (!this.building) {
      this.building = (async () => {
        // Unchanged rows: keep the built objects (a cheap version query instead of a full load).
        if (cur && Math.abs(now - cur.builtAtMs) < SNAPSHOT_MAX_AGE_MS && (await pmMarketsVersion(this.database.db)) === cur.version) {
          cur.checkedAtMs = now;
          return cur;
        }
        return this.build(now);
      })().finally(() => {
        this.building = null;
      });
    }
    const snap = await this.building;
    this.current = snap;
    return snap;
  }

  private async build(nowMs: number): Promise<PmSnapshot> {
    const version = await pmMarketsVersion(this.database.db);
    const rows = await loadPmMarkets(this.database.db);
    const byKey = new Map(rows.map((r) => [keyOf(r), r]));
    const clusters = new Map<string, PmMarketRow[]>();
    for (const r of rows) {
      if (!r.canonicalKey) continue;
      if (!clusters.has(r.canonicalKey)) clusters.set(r.canonicalKey, []);
      clusters.get(r.canonicalKey)!.push(r);
    }
    const refs = new Map<string, ReferenceProbability | null>();
    const events = new Map<string, Record<string, unknown>>();
    const usd: Money = { rate: 1 };
    for (const r of rows) {
      const members = r.canonicalKey ? clusters.get(r.canonicalKey)! : [];
      const ref = r.canonicalKey ? referenceFor(r, members, nowMs) : null;
      refs.set(keyOf(r), ref);
      events.set(keyOf(r), eventObject(r, nowMs, usd, ref));
    }
    const health = new Map((await venueHealth(this.database.db)).map((h) => [h.source, { lastSuccessAt: h.lastSuccessAt, lastError: h.lastError, mode: h.mode }]));
    return { builtAtMs: nowMs, checkedAtMs: nowMs, version, rows, byKey, clusters, refs, events, health };
  }
}

/** Compact cross-venue pointers on list events; the detail's crossSourceMatches carries the rest. */
export function crossPlatformOf(r: PmMarketRow, members: PmMarketRow[]): unknown[] {
  return members
    .filter((m) => keyOf(m) !== keyOf(r))
    .map((m) => ({ source: m.source, orientation: relativeOrientation(r.orientation, m.orientation), status: m.status }));
}

const models = new WeakMap<Database, PmReadModel>();

/** The process's read model for a database (one per database, shared by routes and helpers). */
export function pmReadModel(database: Database, clock: Clock): PmReadModel {
  let model = models.get(database);
  if (!model) {
    model = new PmReadModel(database, clock);
    models.set(database, model);
  }
  return model;
}
