/**
 * The ingest job: asks every venue adapter for its markets and large prints, stores the
 * latest state and our own captures, matches markets into canonical events, and
 * publishes SSE events (deltas each run, whales and resolutions when new).
 */
import type { Database } from '../storage/db.js';
import {
  countPmMarkets,
  insertPmCaptures,
  insertPmWhales,
  loadPmMarkets,
  prunePmCaptures,
  pruneSettledFlashMarkets,
  prunePmStreamEvents,
  publishPmStreamEvent,
  recordVenueAttempt,
  setPmClusters,
  upsertPmMarkets,
  type NewPmMarketRow,
  type PmCaptureRow,
} from '../storage/pm-repo.js';
import { matchMarkets } from './matching.js';
import { DAY_MS, HOUR_MS } from './sim/questions.js';
import type { CoinPrices } from './sim/coin-prices.js';
import { SimWorld, type CapturePoint, type SimProfile } from './sim/world.js';
import type { MarketState, VenueAdapter, VenueSnapshot, WhalePrint } from './types.js';
import { isMoneyVenue, venueById } from './venues.js';
import { whaleItem } from './views.js';
import { appendSpark, changeOver, leaderIndex, seriesAt, SPARK_WINDOW_MS, type SparkEntry } from './spark.js';

export const BACKFILL_WINDOW_MS = 30 * DAY_MS;
const DELTAS_TOP = 10;
const DELTAS_EVERY_MS = 15_000;
/** A market missing from its venue's list is read on its own at most this often… */
const LOOKUP_EVERY_MS = 10 * 60_000;
/** …and at most this many a venue a run (one request each). */
const LOOKUP_MAX_PER_RUN = 10;
/** Back-filled capture rows written per ingest run. */
const BACKFILL_SLICE = 1500;
/** Native-history captures written per statement during the first run. */
const FIRST_SLICE = 5000;
/** Our captures are kept this long. */
const CAPTURE_RETENTION_MS = 90 * DAY_MS;

/** A venue that changed its scale (cents for fractions, a renamed field read as 0..1): not stored as 170 % or −70 %. */
const isStorable = (m: MarketState): boolean => m.outcomes.length > 0 && m.outcomes.every((o) => o.probability >= 0 && o.probability <= 100);

export interface PmIngestOptions {
  seed: string;
  profile: SimProfile;
  /** Venue adapters; default: the 12 simulated venues. */
  adapters?: VenueAdapter[];
  /** Back-fill our capture history on an empty database (sim only). */
  backfill?: boolean;
  /** How far back the back-fill reaches (default 30 days; tests use less). */
  backfillWindowMs?: number;
  /** The simulated coins' prices: coin price questions anchor and settle on them. */
  coinPrices?: CoinPrices;
}

interface Known {
  spark: SparkEntry[];
  lastCaptureAt: number | null;
  resolved: boolean;
  title: string;
  kind: 'binary' | 'multi';
  outcomes: string[];
  liquidity: number;
  endAtMs: number | null;
  cluster: string | null;
  orientation: string | null;
}

function rowOf(m: MarketState, known: Known | undefined, nowMs: number, captured: boolean): NewPmMarketRow {
  const probs = m.outcomes.map((o) => o.probability);
  let spark = known?.spark ?? [];
  if (captured) spark = appendSpark(spark, [nowMs, ...probs]);
  const li = leaderIndex(m, probs);
  // Changes always compare the current price with the captured past, captured this run or not.
  const series = captured ? spark : seriesAt(spark, probs, nowMs);
  return {
    source: m.source,
    slug: m.slug,
    marketId: m.marketId,
    title: m.title,
    description: m.description,
    category: m.category,
    kind: m.kind,
    status: m.status,
    outcomes: m.outcomes,
    volume: m.volume,
    volume24h: m.volume24h,
    liquidity: m.liquidity,
    priceChange24h: m.status === 'open' ? changeOver(series, li, nowMs, DAY_MS) : null,
    priceChange7d: m.status === 'open' ? changeOver(series, li, nowMs, 7 * DAY_MS) : null,
    startAt: m.startAtMs === null ? null : new Date(m.startAtMs),
    endAt: m.endAtMs === null ? null : new Date(m.endAtMs),
    closedAt: m.closedAtMs === null ? null : new Date(m.closedAtMs),
    resolutionState: m.resolution?.state ?? null,
    resolvedAt: m.resolution ? new Date(m.resolution.resolvedAtMs) : null,
    resolvedAtVerified: m.resolution?.verified ?? false,
    winnerExternalId: m.resolution?.winnerExternalMarketId ?? null,
    resolutionBasis: m.resolution?.basis ?? null,
    rules: m.rules,
    settlementSource: m.settlementSource,
    coinIds: m.coinIds,
    topics: m.topics,
    finalProbabilities: m.finalProbabilities ?? null,
    leadProbabilities: m.leadProbabilities ?? null,
    spark,
    lastCaptureAt: captured ? new Date(nowMs) : known?.lastCaptureAt ? new Date(known.lastCaptureAt) : null,
    updatedAt: new Date(nowMs),
  };
}

function captureRow(c: CapturePoint, kind: string): PmCaptureRow {
  return {
    source: c.source,
    slug: c.slug,
    capturedAt: new Date(c.capturedAtMs),
    probabilities: c.probabilities,
    leaderP: c.probabilities[leaderIndex({ kind }, c.probabilities)]! / 100,
    volume: c.volume,
    volume24h: c.volume24h,
    liquidity: c.liquidity,
  };
}

function whaleRow(w: WhalePrint, observedAtMs: number) {
  return {
    id: w.id,
    source: w.source,
    slug: w.slug,
    title: w.title,
    wallet: w.wallet,
    traderName: w.traderName,
    side: w.side,
    outcome: w.outcome,
    usdValue: w.usdValue,
    price: w.price,
    tradedAt: new Date(w.tradedAtMs),
    observedAt: new Date(Math.max(observedAtMs, w.tradedAtMs)),
    evidenceType: w.evidenceType,
    evidenceRef: w.evidenceRef,
    evidenceUrl: w.evidenceUrl,
  };
}

export class PmIngest {
  readonly world: SimWorld;
  private readonly adapters: VenueAdapter[];
  private known: Map<string, Known> | null = null;
  private lastFetchAt = new Map<string, number>();
  private readonly lastAttemptAt = new Map<string, number>();
  private lastRunAt: number | null = null;
  private lastMatchSize = -1;
  private lastMatchAt = 0;
  private lastDeltasAt: number | null = null;
  private readonly pushed = new Set<string>();
  private pendingCaptures: PmCaptureRow[] = [];
  /** When each market missing from its venue's list was last looked up on its own. */
  private readonly lookedUpAt = new Map<string, number>();

  constructor(
    private readonly database: Database,
    private readonly options: PmIngestOptions,
  ) {
    this.world = new SimWorld(options.seed, options.profile, options.coinPrices);
    this.adapters = options.adapters ?? this.world.adapters();
  }

  /**
   * Captures are taken this often per market: every 15 min where we serve native price
   * history (polymarket, kalshi), hourly elsewhere (sparklines, daily volume, calibration
   * need no more); the fast profile captures 15× as often.
   */
  captureEveryMs(source: string): number {
    const base = venueById(source)?.nativeHistory ? 15 * 60_000 : 60 * 60_000;
    return this.options.profile === 'fast' ? base / 15 : base;
  }

  private async loadKnown(): Promise<Map<string, Known>> {
    const rows = await loadPmMarkets(this.database.db);
    const known = new Map<string, Known>();
    for (const r of rows) {
      known.set(`${r.source}/${r.slug}`, {
        spark: r.spark as SparkEntry[],
        lastCaptureAt: r.lastCaptureAt?.getTime() ?? null,
        resolved: r.resolutionState !== null,
        title: r.title,
        kind: r.kind as 'binary' | 'multi',
        outcomes: (r.outcomes as { name: string }[]).map((o) => o.name),
        liquidity: r.liquidity,
        endAtMs: r.endAt?.getTime() ?? null,
        cluster: r.canonicalKey,
        orientation: r.orientation,
      });
    }
    return known;
  }

  /** Fills an empty database with 30 days of simulated captures and the resolved archive. */
  async backfill(nowMs: number): Promise<void> {
    const { captures, states, whales } = await this.world.backfill(nowMs, this.options.backfillWindowMs ?? BACKFILL_WINDOW_MS);
    const archive = this.world.archive();
    const kinds = new Map(states.map((s) => [`${s.source}/${s.slug}`, s.kind]));
    const sparks = new Map<string, { spark: SparkEntry[]; last: number }>();
    for (const c of captures) {
      const key = `${c.source}/${c.slug}`;
      const cur = sparks.get(key) ?? { spark: [], last: 0 };
      if (c.capturedAtMs > nowMs - SPARK_WINDOW_MS) cur.spark = appendSpark(cur.spark, [c.capturedAtMs, ...c.probabilities]);
      cur.last = Math.max(cur.last, c.capturedAtMs);
      sparks.set(key, cur);
    }
    const rows = [...states, ...archive].map((s) => {
      const sp = sparks.get(`${s.source}/${s.slug}`);
      return rowOf(s, sp ? ({ spark: sp.spark, lastCaptureAt: sp.last } as Known) : undefined, nowMs, false);
    });
    await upsertPmMarkets(this.database.db, rows);
    await insertPmWhales(this.database.db, whales.map((w) => whaleRow(w, w.tradedAtMs)));
    // Capture rows go in slices over the next runs, so the first run (and a shutdown waiting for it) stays short.
    this.pendingCaptures = captures.map((c) => captureRow(c, kinds.get(`${c.source}/${c.slug}`) ?? 'binary'));
  }

  /** Writes the next slice of back-filled captures; returns how many remain. */
  async drainBackfill(max = BACKFILL_SLICE): Promise<number> {
    const slice = this.pendingCaptures.splice(0, max);
    if (slice.length > 0) await insertPmCaptures(this.database.db, slice);
    return this.pendingCaptures.length;
  }

  /**
   * Stored markets of a venue that its list left out this run and that are not settled yet, the
   * earliest-ending first: each is read on its own at most every LOOKUP_EVERY_MS (counted from when
   * it was asked), LOOKUP_MAX_PER_RUN a run, so a market that closed or resolved is stored as such
   * and its positions settle.
   */
  private async lookUp(source: string, lookup: NonNullable<VenueAdapter['lookup']>, listed: Set<string>, nowMs: number): Promise<MarketState[]> {
    const prefix = `${source}/`;
    const due = [...this.known!.entries()].filter(
      ([key, k]) => key.startsWith(prefix) && !listed.has(key) && !k.resolved && nowMs - (this.lookedUpAt.get(key) ?? Number.NEGATIVE_INFINITY) >= LOOKUP_EVERY_MS,
    );
    const picked = due.sort(([, a], [, b]) => (a.endAtMs ?? Infinity) - (b.endAtMs ?? Infinity)).slice(0, LOOKUP_MAX_PER_RUN);
    const { markets, asked } = await lookup(
      picked.map(([key]) => key.slice(prefix.length)),
      nowMs,
    );
    for (const slug of asked) this.lookedUpAt.set(prefix + slug, nowMs);
    return markets;
  }

  /** One ingest pass at `nowMs`. */
  async run(nowMs: number): Promise<void> {
    const db = this.database.db;
    if (this.known === null) {
      const empty = this.options.backfill !== false && !this.options.adapters && (await countPmMarkets(db)) === 0;
      if (empty) {
        await this.backfill(nowMs);
        // Readiness waits for price history: the native venues' captures go in now (they are
        // the ones served as history), the sparse rest over the next runs.
        this.pendingCaptures.sort((a, b) => Number(!venueById(a.source)?.nativeHistory) - Number(!venueById(b.source)?.nativeHistory));
        for (let left = this.pendingCaptures.filter((c) => venueById(c.source)?.nativeHistory).length; left > 0; left -= FIRST_SLICE) {
          await this.drainBackfill(Math.min(left, FIRST_SLICE));
        }
      }
      this.known = await this.loadKnown();
      // The first run goes on to a regular pass: the lists hold today's markets (flash ones too) at once.
    }
    const known = this.known;
    const since = this.lastRunAt ?? nowMs - 15 * 60_000;
    const rows: NewPmMarketRow[] = [];
    const captures: PmCaptureRow[] = [];
    const whales: WhalePrint[] = [];
    const newlyResolved: MarketState[] = [];
    // a failed attempt waits its interval too (a failing venue was asked every run: 4 a minute past a 429)
    const due = this.adapters.filter((adapter) => {
      const last = this.lastAttemptAt.get(adapter.source);
      return last === undefined || nowMs - last >= adapter.minPollMs;
    });
    for (const adapter of due) this.lastAttemptAt.set(adapter.source, nowMs);
    const ask = (adapter: VenueAdapter): Promise<PromiseSettledResult<VenueSnapshot>> =>
      Promise.resolve()
        .then(() => adapter.fetch(nowMs, this.lastFetchAt.get(adapter.source) ?? since))
        .then(
          (value) => ({ status: 'fulfilled', value }),
          (reason: unknown) => ({ status: 'rejected', reason }),
        );
    // live venues are asked at once: one hanging venue costs this run one timeout, not one each;
    // simulated ones are computed in turn, as before, so requests get the event loop between them
    const asked = new Map(due.filter((a) => a.mode === 'live').map((a) => [a, ask(a)] as const));
    for (const adapter of due) {
      const answer = await (asked.get(adapter) ?? ask(adapter));
      // a live list with no usable market (an empty page, every row malformed or off the scale) is a
      // failure, not fresh data: it counted as a healthy answer, and readiness waited for its history for good
      const empty = answer.status === 'fulfilled' && adapter.mode === 'live' && !answer.value.markets.some(isStorable);
      if (answer.status === 'rejected' || empty) {
        // A failing venue only ages its own freshness; the others carry on.
        const error = answer.status === 'rejected' ? (answer.reason as Error) : new Error('the answer held no usable market');
        await recordVenueAttempt(db, adapter.source, adapter.mode, nowMs, String(error?.message ?? error).slice(0, 300));
        continue;
      }
      const snapshot = answer.value;
      await recordVenueAttempt(db, adapter.source, adapter.mode, nowMs, null);
      this.lastFetchAt.set(adapter.source, nowMs);
      const seen = new Set<string>();
      const take = (m: MarketState) => {
        const key = `${m.source}/${m.slug}`;
        // a venue that lists a market twice in one answer (pages shift under it): the first counts —
        // two rows for one key made the whole run's single upsert fail for every venue
        if (seen.has(key)) return;
        if (!isStorable(m)) return;
        seen.add(key);
        const k = known.get(key);
        const due = m.status === 'open' && (k?.lastCaptureAt == null || nowMs - k.lastCaptureAt >= this.captureEveryMs(m.source));
        const row = rowOf(m, k, nowMs, due);
        rows.push(row);
        if (due) {
          captures.push(
            captureRow(
              { source: m.source, slug: m.slug, capturedAtMs: nowMs, probabilities: m.outcomes.map((o) => o.probability), volume: m.volume, volume24h: m.volume24h, liquidity: m.liquidity },
              m.kind,
            ),
          );
        }
        if (m.resolution && !k?.resolved) newlyResolved.push(m);
        known.set(key, {
          spark: row.spark as SparkEntry[],
          lastCaptureAt: row.lastCaptureAt?.getTime() ?? null,
          resolved: Boolean(k?.resolved || m.resolution),
          title: m.title,
          kind: m.kind,
          outcomes: m.outcomes.map((o) => o.name),
          liquidity: m.liquidity,
          endAtMs: m.endAtMs,
          cluster: k?.cluster ?? null,
          orientation: k?.orientation ?? null,
        });
      };
      snapshot.markets.forEach(take);
      if (adapter.lookup) (await this.lookUp(adapter.source, adapter.lookup, seen, nowMs)).forEach(take);
      whales.push(...snapshot.whales);
    }
    await upsertPmMarkets(db, rows);
    await insertPmCaptures(db, captures);
    const fresh = await insertPmWhales(db, whales.map((w) => whaleRow(w, nowMs)));
    await this.rematch(nowMs);

    const at = new Date(nowMs).toISOString();
    const freshWhales = whales.filter((w) => fresh.has(w.id) && isMoneyVenue(w.source)).sort((a, b) => b.tradedAtMs - a.tradedAtMs);
    if (freshWhales.length > 0) {
      await publishPmStreamEvent(db, 'whale', { at, trades: freshWhales.slice(0, 20).map((w) => whaleItem(whaleRow(w, nowMs), nowMs)) }, nowMs);
    }
    if (newlyResolved.length > 0) {
      await publishPmStreamEvent(
        db,
        'resolution',
        {
          at,
          resolutions: newlyResolved.slice(0, 50).map((m) => ({
            source: m.source,
            slug: m.slug,
            title: m.title,
            resolutionState: m.resolution!.state,
            resolvedAt: m.resolution!.verified ? new Date(m.resolution!.resolvedAtMs).toISOString() : null,
            winningOutcome: m.resolution!.winnerExternalMarketId ? (m.outcomes.find((o) => o.externalMarketId === m.resolution!.winnerExternalMarketId)?.name ?? null) : null,
          })),
        },
        nowMs,
      );
    }
    // Deltas: about every 15 s, each (market, change, volume) row pushed once per process lifetime.
    const deltasDue = this.lastDeltasAt === null || nowMs - this.lastDeltasAt >= DELTAS_EVERY_MS - 1000;
    const movers = rows
      .filter((r) => deltasDue && r.status === 'open' && r.priceChange24h !== null && r.priceChange24h !== undefined)
      .filter((r) => !this.pushed.has(`${r.source}/${r.slug}/${r.priceChange24h}/${r.volume24h}`))
      .sort((a, b) => Math.abs(b.priceChange24h!) - Math.abs(a.priceChange24h!))
      .slice(0, DELTAS_TOP);
    if (movers.length > 0) {
      this.lastDeltasAt = nowMs;
      if (this.pushed.size > 100_000) this.pushed.clear();
      for (const r of movers) this.pushed.add(`${r.source}/${r.slug}/${r.priceChange24h}/${r.volume24h}`);
      await publishPmStreamEvent(
        db,
        'deltas',
        {
          at,
          deltas: movers.map((r) => ({
            source: r.source,
            slug: r.slug,
            title: r.title,
            priceChange24h: r.priceChange24h,
            volume24h: r.volume24h,
            capturedAt: r.lastCaptureAt?.toISOString() ?? null,
          })),
        },
        nowMs,
      );
    }
    if (this.lastRunAt === null || Math.floor(nowMs / HOUR_MS) !== Math.floor(this.lastRunAt / HOUR_MS)) {
      await prunePmStreamEvents(db, nowMs - DAY_MS);
      await prunePmCaptures(db, nowMs - CAPTURE_RETENTION_MS);
      // Fast profile: settled flash markets (minutes long) are kept for a day, so a demo can run for weeks.
      if (this.options.profile === 'fast') {
        for (const g of await pruneSettledFlashMarkets(db, nowMs - DAY_MS)) this.known.delete(`${g.source}/${g.slug}`);
      }
    }
    if (this.pendingCaptures.length > 0) await this.drainBackfill();
    this.lastRunAt = nowMs;
  }

  /** Re-clusters when markets appeared (or every 10 minutes) and stores changed memberships. */
  private async rematch(nowMs: number): Promise<void> {
    const known = this.known!;
    if (known.size === this.lastMatchSize && nowMs - this.lastMatchAt < 10 * 60_000) return;
    this.lastMatchSize = known.size;
    this.lastMatchAt = nowMs;
    const inputs = [...known.entries()].map(([key, k]) => {
      const [source, slug] = key.split('/') as [string, string];
      return { source, slug, title: k.title, kind: k.kind, outcomes: k.outcomes, liquidity: k.liquidity, endAtMs: k.endAtMs };
    });
    const changed = matchMarkets(inputs).filter((r) => {
      const k = known.get(`${r.source}/${r.slug}`)!;
      const differs = k.cluster !== r.canonicalKey || k.orientation !== r.orientation;
      k.cluster = r.canonicalKey;
      k.orientation = r.orientation;
      return differs;
    });
    if (changed.length > 0) await setPmClusters(this.database.db, changed);
  }
}
