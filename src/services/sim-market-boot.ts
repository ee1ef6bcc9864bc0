/**
 * Starts the simulated market for a process: resumes from the stored checkpoint (catching
 * up the minutes since) or, on an empty database, back-fills every candle range at once.
 */
import { CANDLE_RANGES, barOpenTime } from '../domain/candles.js';
import type { Coin } from '../marketdata/coins.js';
import { BarBook } from '../marketdata/sim/bar-book.js';
import { backfill } from '../marketdata/sim/backfill.js';
import { minuteIndexOf, type SimProfileName } from '../marketdata/sim/params.js';
import { createSimUniverse } from '../marketdata/sim/universe.js';
import { SimMarket } from '../marketdata/sim-market.js';
import type { Db } from '../storage/db.js';
import { upsertCoins } from '../storage/market-repo.js';
import type { SimCheckpointMeta, SimStore } from '../storage/sim-store.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';

export interface SimBootOptions {
  /** May still be opening: the market is simulated meanwhile, the coins stored once it is open. */
  db: Db | Promise<Db>;
  store: SimStore;
  coins: readonly Coin[];
  seed: string;
  profile: SimProfileName;
  nowMs: number;
  say?: (line: string) => void;
}

export interface RunningSimMarket {
  market: SimMarket;
  /** Stores the state and the bars changed since the last checkpoint (leader job). */
  checkpoint(): Promise<void>;
  /** How the market started: a cold back-fill or a resume (with the minutes caught up). */
  start: { kind: 'cold'; minutes: number } | { kind: 'resume'; caughtUpMinutes: number };
}

/** The first minute whose sample the longest range (3M) still shows at nowMs. */
export function historyStartMinute(nowMs: number): number {
  const { barSeconds, count } = CANDLE_RANGES['3M'];
  return ((barOpenTime(Math.floor(nowMs / 1000), barSeconds) - (count - 1) * barSeconds) * 1000) / 60_000;
}

/** What a stored checkpoint must match to be resumed: the seed, the profile and the coin universe. */
export function simMeta(coins: readonly Coin[], seed: string, profile: SimProfileName): SimCheckpointMeta {
  return { seed, profile, universeHash: sha256Hex(canonicalJson(coins)).slice(0, 16) };
}

/** True when a checkpoint (or a prepared history) made for `stored` may be resumed by a start for `meta`. */
export function sameSimMeta(stored: SimCheckpointMeta, meta: SimCheckpointMeta): boolean {
  return stored.seed === meta.seed && stored.profile === meta.profile && stored.universeHash === meta.universeHash;
}

/** A market that cold-starts 90 days before nowMs and is simulated up to it, stored whole (replacing the store's content). */
export async function backfillInto(store: SimStore, meta: SimCheckpointMeta, coins: readonly Coin[], profile: SimProfileName, nowMs: number): Promise<SimMarket> {
  const result = backfill(coins, meta.seed, historyStartMinute(nowMs), minuteIndexOf(nowMs), { profile });
  const book = new BarBook(coins.length);
  book.mergeSeries(result.series);
  const market = new SimMarket(result.universe, result.state, book);
  market.advanceTo(nowMs);
  await store.save(meta, market.state, book.allRows(), book.windowStarts(), { replaceAll: true });
  return market;
}

export async function startSimMarket(options: SimBootOptions): Promise<RunningSimMarket> {
  const { db, store, coins, seed, profile, nowMs } = options;
  const say = options.say ?? (() => undefined);
  const meta = simMeta(coins, seed, profile);
  const nowMinute = minuteIndexOf(nowMs);
  const stored = await store.load();
  const resumable =
    stored !== null &&
    sameSimMeta(stored, meta) &&
    stored.state.minuteIndex >= historyStartMinute(nowMs) &&
    stored.state.minuteIndex <= nowMinute;

  let market: SimMarket | null = null;
  let start: RunningSimMarket['start'];
  if (resumable) {
    try {
      market = new SimMarket(createSimUniverse(coins, seed, profile), stored.state, BarBook.fromRows(coins.length, stored.rows));
    } catch (error) {
      // rows another universe wrote under this one's settings (a mis-configured process sharing the
      // database): every restart crashed on them; the history is made again instead
      say(`  market: the stored market does not fit these settings (${(error as Error).message}); making it again`);
    }
  }
  if (market && resumable) {
    const caughtUpMinutes = nowMinute - stored.state.minuteIndex;
    market.advanceTo(nowMs);
    start = { kind: 'resume', caughtUpMinutes };
    say(`  market: resumed the simulated market (seed ${seed}), caught up ${caughtUpMinutes} minute(s)`);
    await store.save(meta, market.state, market.book.takeDirty(), market.book.windowStarts());
  } else {
    const minutes = nowMinute - historyStartMinute(nowMs);
    say(`  market: back-filling ${Math.round(minutes / 1440)} days of simulated history for ${coins.length} coins (seed ${seed})…`);
    const started = performance.now();
    market = await backfillInto(store, meta, coins, profile, nowMs);
    say(`  market: back-fill done and stored in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    start = { kind: 'cold', minutes };
  }
  await upsertCoins(await db, coins);
  return {
    market,
    start,
    async checkpoint() {
      const rows = market.book.takeDirty();
      try {
        await store.save(meta, market.state, rows, market.book.windowStarts());
      } catch (error) {
        market.book.markDirty(rows);
        throw error;
      }
    },
  };
}
