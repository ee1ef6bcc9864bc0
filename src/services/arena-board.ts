import { auditStatsOf } from '../domain/audit-stats.js';
import { auditCountsOf } from '../storage/account-repo.js';
import { handleFor } from '../domain/api-keys.js';
import { badgesFor } from '../arena/badges.js';
import { boardSource, houseStepsAside } from '../arena/house/board-rule.js';
import {
  arenaContract,
  compareRankable,
  isQualified,
  LISTING_MIN_DECIDED_TRADES,
  rankScore,
  SMALL_SAMPLE_BELOW_DECIDED_TRADES,
  type ArenaContract,
} from '../arena/ranking.js';
import { allTimeSparkline, ARENA_SPARK_POINTS, windowedSparkline, type DayPnl } from '../arena/sparkline.js';
import { byVenueView, decidedOf, emptyVenueCounts, roundMusd, totalOf, winRateOf, type Counts, type VenueCounts } from '../arena/stats.js';
import { daysBetween, resolveWindow, utcDay, windowTimeBucket, type BoardWindow, type WindowSpec } from '../arena/windows.js';
import {
  boardFingerprint,
  findRankSnapshotId,
  firstMigrationDay,
  loadAllTimeAgents,
  loadDayPnl,
  loadDayWindowCounts,
  loadRankSnapshot,
  loadTradeDayPnl,
  loadTradeWindowCounts,
  type AllTimeAgent,
} from '../storage/arena-board-repo.js';
import { bookCacheOf, type Queryable } from '../storage/db.js';
import { houseKeyIds } from '../storage/house-repo.js';
import type { Clock } from '../util/clock.js';

const DAY_MS = 86_400_000;
/** rankDelta compares with the newest snapshot of the same window at least this old. */
export const RANK_DELTA_MIN_AGE_MS = 6 * 3_600_000;
/**
 * From this many public agents a rebuild takes long enough that readers keep the previous
 * board while one rebuild runs in the background (stale-while-revalidate); smaller boards are
 * rebuilt before answering, so they are always exact.
 */
export const BACKGROUND_REBUILD_MIN_AGENTS = 1000;

export interface BoardEntry {
  agent: AllTimeAgent;
  handle: string;
  window: VenueCounts;
  total: Counts;
  decided: number;
  score: number;
  /** Qualified by all-time decided trades, whatever the window (contract §4.2 rule 2). */
  qualified: boolean;
  /** A house (demo) agent: all-time figures on every window, ranked after every live row. */
  demo: boolean;
}

export interface Board {
  window: BoardWindow;
  spec: WindowSpec;
  entries: BoardEntry[];
  /**
   * House agents not listed because they stepped aside: still public agents, so their profiles
   * answer, ranked after every listed row.
   */
  aside: BoardEntry[];
  rankOf: Map<number, number>;
  key: string;
  /** `demo` while only house agents are listed (src/arena/house/board-rule.ts). */
  source: 'live' | 'demo';
}

/** Longer than a trade write's transaction takes from its id to its commit (one statement). */
export const BOARD_SETTLE_MS = 5_000;

export interface ArenaBoardOptions {
  /** HOUSE_AGENTS: off hides every house agent's row. */
  houseAgents?: boolean;
  /**
   * Keep the board's fingerprint in memory until a book or a public identity changes (needs the
   * book cache). For PGlite, where each read costs the one database thread. On PostgreSQL the
   * read runs on the database's own cores and concurrent requests share it; measured there, the
   * in-memory fingerprint served fewer requests (19–20k vs 26–30k req/s, 50 connections).
   */
  fingerprintInMemory?: boolean;
}

/** The options a server's boards run with: its HOUSE_AGENTS setting, the fingerprint in memory on PGlite. */
export function boardOptions(ctx: { config: { houseAgents: boolean }; database: { kind: 'pglite' | 'postgres' } }): ArenaBoardOptions {
  return { houseAgents: ctx.config.houseAgents, fingerprintInMemory: ctx.database.kind === 'pglite' };
}

/**
 * Ranks every public agent for a window from the precomputed aggregates and keeps the result
 * in memory until a trade lands, a public identity changes, or the window moves on.
 */
type LeaderboardRow = Awaited<ReturnType<ArenaBoards['rows']>>[number];
/** One leaderboard page (without `asOf`, which is per request). */
type LeaderboardPageBody = {
  page: number;
  pageSize: number;
  total: number;
  minDecidedTrades: number;
  contract: ArenaContract;
  window: BoardWindow;
  source: Board['source'];
  rows: LeaderboardRow[];
};

export class ArenaBoards {
  private readonly boards = new Map<BoardWindow, Board>();
  private readonly building = new Map<BoardWindow, { key: string; promise: Promise<Board> }>();
  private readonly snapshots = new Map<number, Map<number, number>>();
  /** Served rows per board state, page and minute (badges and rankDelta move with time). */
  private readonly pages = new Map<string, Promise<unknown[]>>();
  private readonly snapshotIds = new Map<string, Promise<number | null>>();
  private contractRecord: ArenaContract | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
    private readonly options: ArenaBoardOptions = {},
  ) {}

  async contract(): Promise<ArenaContract> {
    this.contractRecord ??= arenaContract(await firstMigrationDay(this.db));
    return this.contractRecord;
  }

  private inflightFingerprint: Promise<string> | null = null;

  /** Requests arriving while a fingerprint read is in flight share its answer (and see fingerprintInMemory). */
  private fingerprint(): Promise<string> {
    if (!this.inflightFingerprint) {
      const cache = this.options.fingerprintInMemory ? bookCacheOf(this.db) : null;
      const read = () => boardFingerprint(this.db);
      this.inflightFingerprint = (cache ? cache.readShared('arena-board-fingerprint', read) : read()).finally(() => {
        this.inflightFingerprint = null;
      });
    }
    return this.inflightFingerprint;
  }

  private lastFingerprint = '';
  private fingerprintChangedAtMs = 0;

  /**
   * On PostgreSQL a trade can take an id below the newest one and commit after it: max(id) then
   * does not move when it lands, and a board built between the two commits kept it out until the
   * next trade anywhere. A board built within BOARD_SETTLE_MS of a fingerprint change is therefore
   * built once more when that time has passed (one extra build per burst of trades).
   */
  private settling(fingerprint: string, now: number): 'settling' | 'settled' {
    if (fingerprint !== this.lastFingerprint) {
      this.lastFingerprint = fingerprint;
      this.fingerprintChangedAtMs = now;
    }
    return now - this.fingerprintChangedAtMs >= BOARD_SETTLE_MS ? 'settled' : 'settling';
  }

  async board(window: BoardWindow): Promise<Board> {
    const now = this.clock.now();
    const fingerprint = await this.fingerprint();
    const key = `${window}|${fingerprint}|${this.settling(fingerprint, now)}|${windowTimeBucket(window, now)}`;
    const cached = this.boards.get(window);
    if (cached?.key === key) return cached;
    const big = cached !== undefined && cached.entries.length >= BACKGROUND_REBUILD_MIN_AGENTS;
    // One build per window at a time, whatever the fingerprint.
    const running = this.building.get(window);
    if (running) {
      if (big) return cached;
      if (running.key === key) return running.promise;
      await running.promise.catch(() => undefined);
      return this.board(window);
    }
    const promise = this.build(window, now, key)
      .then((board) => {
        this.boards.set(window, board);
        return board;
      })
      .finally(() => this.building.delete(window));
    promise.catch(() => undefined);
    this.building.set(window, { key, promise });
    return big ? cached : promise;
  }

  private async build(window: BoardWindow, now: number, key: string): Promise<Board> {
    const house = await houseKeyIds(this.db);
    const everyone = await loadAllTimeAgents(this.db);
    const live = everyone.filter((a) => !house.has(a.keyId));
    const houseOn = this.options.houseAgents !== false;
    const showHouse = houseOn && !houseStepsAside(live.map((a) => decidedOf(totalOf(a.venues))));
    const agents = houseOn ? everyone : live;
    const earliest = agents.reduce<number | null>(
      (min, a) => (a.firstTradeAtMs !== null && (min === null || a.firstTradeAtMs < min) ? a.firstTradeAtMs : min),
      null,
    );
    const spec = resolveWindow(window, now, earliest);
    const windowCounts =
      spec.kind === 'days'
        ? await loadDayWindowCounts(this.db, spec.fromDay)
        : spec.kind === 'rolling'
          ? await loadTradeWindowCounts(this.db, spec.fromMs)
          : null;
    const entries = agents.map((agent): BoardEntry => {
      const demo = house.has(agent.keyId);
      // Demo rows ignore windowing (contract §4.2 rule 2).
      const venues = windowCounts && !demo ? (windowCounts.get(agent.keyId) ?? emptyVenueCounts()) : agent.venues;
      const total = totalOf(venues);
      const decided = decidedOf(total);
      const qualified = isQualified(decidedOf(totalOf(agent.venues)));
      return { agent, handle: handleFor(agent.keyId, agent.agentName), window: venues, total, decided, score: rankScore(total.pnl, total.wins, decided), qualified, demo };
    });
    // qualified agents first, house or not (contract §3: below 5 decided trades sorts after every qualified agent);
    // within each group demo rows after live ones
    entries.sort((a, b) => Number(b.qualified) - Number(a.qualified) || Number(a.demo) - Number(b.demo) || compareRankable(rankable(a), rankable(b)));
    const listed = showHouse ? entries : entries.filter((e) => !e.demo);
    const aside = showHouse ? [] : entries.filter((e) => e.demo);
    const rankOf = new Map<number, number>();
    [...listed, ...aside].forEach((e, i) => rankOf.set(e.agent.keyId, i + 1));
    const demoCount = listed.filter((e) => e.demo).length;
    return { window, spec, entries: listed, aside, rankOf, key, source: boardSource(listed.length - demoCount, demoCount) };
  }

  /**
   * `GET /api/arena`: a page serialized once per board state, page and minute: JSON text without its
   * closing brace (the caller appends `asOf`), and a tag that changes with it.
   */
  async leaderboardText(window: BoardWindow, page: number, pageSize: number): Promise<{ head: string; tag: string; body: object }> {
    const cached = await this.leaderboardPage(window, page, pageSize);
    cached.head ??= JSON.stringify(cached.body).slice(0, -1);
    return { head: cached.head, tag: cached.tag, body: cached.body };
  }

  /** A leaderboard page as an object (the web pages render it; the JSON route serves leaderboardText). */
  /** A page of the board; `only` keeps live or demo agents before paging (the web page's switch; ranks stay the board's). */
  async leaderboard(window: BoardWindow, page: number, pageSize: number, only?: 'live' | 'demo') {
    const { body } = await this.leaderboardPage(window, page, pageSize, only);
    return { ...body, asOf: new Date(this.clock.now()).toISOString() };
  }

  private readonly pageBodies = new Map<string, { body: LeaderboardPageBody; tag: string; head?: string }>();

  private async leaderboardPage(window: BoardWindow, page: number, pageSize: number, only?: 'live' | 'demo'): Promise<{ body: LeaderboardPageBody; tag: string; head?: string }> {
    const board = await this.board(window);
    const minute = Math.floor(this.clock.now() / 60_000);
    const cacheKey = `${board.key}|${page}|${pageSize}|${minute}${only ? `|${only}` : ''}`;
    const hit = this.pageBodies.get(cacheKey);
    if (hit) return hit;
    const entries = only ? board.entries.filter((e) => e.demo === (only === 'demo')) : board.entries;
    let rows = this.pages.get(cacheKey);
    if (!rows) {
      const slice = entries.slice((page - 1) * pageSize, page * pageSize);
      rows = this.rows(board, slice);
      if (this.pages.size >= 500) this.pages.clear();
      this.pages.set(cacheKey, rows);
      rows.catch(() => this.pages.delete(cacheKey));
    }
    const body = {
      page,
      pageSize,
      total: entries.length,
      minDecidedTrades: LISTING_MIN_DECIDED_TRADES,
      contract: await this.contract(),
      window,
      source: board.source,
      rows: (await rows) as LeaderboardRow[],
    };
    const entry: { body: LeaderboardPageBody; tag: string; head?: string } = { body, tag: cacheKey };
    if (this.pageBodies.size >= 500) this.pageBodies.clear();
    this.pageBodies.set(cacheKey, entry);
    return entry;
  }

  /** `GET /api/arena/{handle}`: the all-time row (rank, PnL, counts, sparkline); null when not listed. */
  async profile(keyId: number, handle: string) {
    const board = await this.board('all');
    const rank = board.rankOf.get(keyId);
    const entry = rank === undefined ? undefined : (board.entries[rank - 1] ?? board.aside[rank - 1 - board.entries.length]);
    if (!entry || entry.handle !== handle) return null;
    const cacheKey = `${board.key}|agent:${keyId}|${Math.floor(this.clock.now() / 60_000)}`;
    let rows = this.pages.get(cacheKey);
    if (!rows) {
      rows = this.rows(board, [entry]);
      if (this.pages.size >= 500) this.pages.clear();
      this.pages.set(cacheKey, rows);
      rows.catch(() => this.pages.delete(cacheKey));
    }
    const [agent] = await rows;
    return { agent: agent!, minDecidedTrades: LISTING_MIN_DECIDED_TRADES, contract: await this.contract() };
  }

  private async rows(board: Board, entries: BoardEntry[]) {
    const now = this.clock.now();
    // 3m is not a windowed board (supplement §3.10): once it is a true 90-day window, its series keeps the last 44 days
    const sparks = await this.sparklines(board.spec, entries.filter((e) => !e.demo), now, board.window === '3m' ? ARENA_SPARK_POINTS : Infinity);
    for (const [keyId, points] of await this.sparklines({ kind: 'all' }, entries.filter((e) => e.demo), now)) sparks.set(keyId, points);
    const previous = await this.previousRanks(board.window, now);
    // house agents trade in-process: they have no ledger, so no audit stats
    const audits = await auditCountsOf(this.db, entries.filter((e) => !e.demo).map((e) => e.agent.keyId));
    return entries.map((e) => {
      const audit = audits.get(e.agent.keyId);
      const rank = board.rankOf.get(e.agent.keyId)!;
      const prev = previous?.get(e.agent.keyId);
      const allTime = totalOf(e.agent.venues);
      return {
        rank,
        rankScore: roundMusd(e.score),
        handle: e.handle,
        agentName: e.agent.agentName,
        source: e.demo ? ('demo' as const) : ('live' as const),
        realizedPnlMusd: e.total.pnl,
        tradeCount: e.total.trades,
        decidedTradeCount: e.decided,
        winCount: e.total.wins,
        lossCount: e.total.losses,
        winRate: winRateOf(e.total),
        byVenue: byVenueView(e.window),
        lastTradeAt: e.agent.lastTradeAtMs === null ? null : new Date(e.agent.lastTradeAtMs).toISOString(),
        biggestWinMusd: roundMusd(e.agent.biggestWin),
        sparkline: sparks.get(e.agent.keyId) ?? [],
        badges: badgesFor(
          {
            decided: decidedOf(allTime),
            wins: allTime.wins,
            venueTradeCounts: { spot: e.agent.venues.spot.trades, futures: e.agent.venues.futures.trades, pm: e.agent.venues.pm.trades },
            biggestWin: e.agent.biggestWin,
            lastTradeAtMs: e.agent.lastTradeAtMs,
          },
          now,
        ),
        rankDelta: prev === undefined || e.demo ? null : prev - rank,
        model: e.agent.agentModel,
        auditStats: audit ? auditStatsOf(audit) : null,
        qualified: e.qualified,
        smallSample: e.decided < SMALL_SAMPLE_BELOW_DECIDED_TRADES,
      };
    });
  }

  private async sparklines(spec: WindowSpec, entries: BoardEntry[], now: number, maxPoints = Infinity): Promise<Map<number, number[]>> {
    const ids = entries.map((e) => e.agent.keyId);
    const out = new Map<number, number[]>();
    if (spec.kind === 'rolling') {
      const days = await loadTradeDayPnl(this.db, ids, spec.fromMs, now);
      for (const e of entries) out.set(e.agent.keyId, windowedSparkline(spec.days, days.get(e.agent.keyId) ?? []));
      return out;
    }
    const range = spec.kind === 'days' ? spec.days : daysBetween(now - (ARENA_SPARK_POINTS - 1) * DAY_MS, now);
    const days = await loadDayPnl(this.db, ids, range[0]!);
    for (const e of entries) {
      const rows: DayPnl[] = (days.get(e.agent.keyId) ?? []).filter((d) => d.day <= utcDay(now));
      out.set(e.agent.keyId, spec.kind === 'days' ? windowedSparkline(range, rows, maxPoints) : allTimeSparkline(range, rows, e.total.pnl));
    }
    return out;
  }

  private async previousRanks(window: BoardWindow, now: number): Promise<Map<number, number> | null> {
    // The newest snapshot ≥ 6 h old only moves when time passes an hourly snapshot; look it up once a minute.
    const idKey = `${window}|${Math.floor(now / 60_000)}`;
    let lookup = this.snapshotIds.get(idKey);
    if (!lookup) {
      lookup = findRankSnapshotId(this.db, window, now - RANK_DELTA_MIN_AGE_MS);
      if (this.snapshotIds.size >= 100) this.snapshotIds.clear();
      this.snapshotIds.set(idKey, lookup);
      lookup.catch(() => this.snapshotIds.delete(idKey));
    }
    const id = await lookup;
    if (id === null) return null;
    let ranks = this.snapshots.get(id);
    if (!ranks) {
      ranks = await loadRankSnapshot(this.db, id);
      if (this.snapshots.size > 24) this.snapshots.clear();
      this.snapshots.set(id, ranks);
    }
    return ranks;
  }
}

const rankable = (e: BoardEntry) => ({ handle: e.handle, qualified: e.qualified, realizedPnl: e.total.pnl, decided: e.decided, score: e.score });
