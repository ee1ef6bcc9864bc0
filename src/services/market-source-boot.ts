/**
 * Starts the process's market data source for MARKET_DATA: the simulated market (sim),
 * the polled public sources (live) or a recorded tape (replay:<file>). Each gives the
 * same MarketReads, plus the clock the service runs on (the replay clock in replay mode).
 */
import { join } from 'node:path';
import type { Config } from '../config/env.js';
import { loadCoins, type Coin } from '../marketdata/coins.js';
import { AlternativeMeClient } from '../marketdata/live/alternative-me.js';
import { CoinGeckoClient } from '../marketdata/live/coingecko.js';
import { DEFAULT_HTTP, type FetchLike } from '../marketdata/live/http-json.js';
import { LiveMarket } from '../marketdata/live/live-market.js';
import { LiveSampleFile } from '../marketdata/live/sample-file.js';
import type { MarketReads } from '../marketdata/reads.js';
import { ReplayMarket } from '../marketdata/replay/replay-market.js';
import { readTape, TapeError } from '../marketdata/replay/tape.js';
import type { Database } from '../storage/db.js';
import { sqlSimStore, upsertCoins } from '../storage/market-repo.js';
import { FileSimStore } from '../storage/sim-file-store.js';
import { CryptoCompareNewsSource } from '../news/live-cryptocompare.js';
import type { NewsSource } from '../news/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { copySimTemplate } from '../storage/sim-template.js';
import { lockDirectory } from '../storage/pglite-lock.js';
import { simMeta, startSimMarket } from './sim-market-boot.js';

export interface RunningMarketSource {
  market: MarketReads;
  /** The service's clock: the system clock, or tape time in replay mode. */
  clock: Clock;
  /** Leader job storing the simulated market (sim only). */
  checkpoint?: () => Promise<void>;
  /** Live news (live mode only); elsewhere the news route uses the simulated wire. */
  news?: NewsSource;
  stop(): void;
}

/** Live news is polled this often; requests read the last good batch. */
const NEWS_POLL_MS = 5 * 60_000;

/**
 * `database` may still be opening (a first start creates PGlite's files meanwhile): the
 * simulated market back-fills its history in the meantime.
 */
export async function startMarketSource(
  config: Config,
  opening: Database | Promise<Database>,
  say: (line: string) => void,
  coins: Coin[] = loadCoins(config.coinsFile),
): Promise<RunningMarketSource> {
  const mode = config.marketData;
  if (mode.kind === 'live') return startLive(config, await opening, coins, say);
  if (mode.kind === 'replay') return startReplay(config, await opening, coins, mode.file, say);
  const pglite = !config.databaseUrl;
  const simDir = join(config.dataDir, 'sim');
  // its files are this process's alone: a second server on this DATA_DIR is refused before it
  // writes a bar (it back-filled and overwrote them before the database lock refused it)
  const unlockSim = pglite ? lockDirectory(simDir, 'the simulated market') : () => undefined;
  try {
    return await startSim(config, opening, coins, simDir, pglite, unlockSim, say);
  } catch (error) {
    unlockSim();
    throw error;
  }
}

async function startSim(
  config: Config,
  opening: Database | Promise<Database>,
  coins: Coin[],
  simDir: string,
  pglite: boolean,
  unlockSim: () => void,
  say: (line: string) => void,
): Promise<RunningMarketSource> {
  if (pglite && copySimTemplate(simDir, simMeta(coins, config.simSeed, config.simProfile))) say('  market: copied the simulated history prepared at install');
  const sim = await startSimMarket({
    db: Promise.resolve(opening).then((d) => d.db),
    // PGlite runs in one process: its checkpoint lives in files beside it (much faster than bytea rows).
    store: pglite ? new FileSimStore(simDir) : sqlSimStore((await opening).db),
    coins,
    seed: config.simSeed,
    profile: config.simProfile,
    nowMs: systemClock.now(),
    say,
  });
  // Every process moves its own copy of the market; the simulation is deterministic, so all agree.
  const ticker = setInterval(() => sim.market.advanceTo(systemClock.now()), 1000);
  ticker.unref();
  return {
    market: sim.market,
    clock: systemClock,
    checkpoint: sim.checkpoint,
    stop: () => {
      clearInterval(ticker);
      unlockSim();
    },
  };
}

async function startLive(config: Config, database: Database, coins: Coin[], say: (line: string) => void): Promise<RunningMarketSource> {
  await upsertCoins(database.db, coins);
  const http = { ...DEFAULT_HTTP, fetch: globalThis.fetch as unknown as FetchLike };
  const live = new LiveMarket({
    coins,
    prices: new CoinGeckoClient({ http, apiKey: config.coingeckoApiKey }),
    fearGreed: new AlternativeMeClient(http),
    clock: systemClock,
    pollMs: config.livePollSeconds * 1000,
    backfillCoins: config.liveBackfillCoins,
    file: new LiveSampleFile(join(config.dataDir, 'live', 'samples.ndjson')),
    fiatSeed: config.simSeed,
    log: (level, message) => (level === 'warn' ? process.stderr : process.stdout).write(`${message}\n`),
  });
  const restored = await live.restore(say);
  say(`  market: live (CoinGecko every ${config.livePollSeconds} s, Fear & Greed from alternative.me); restored ${restored} stored snapshot(s)`);
  live.start();
  const news = new CryptoCompareNewsSource(http);
  const pollNews = () => void news.refresh(systemClock.now()).catch((e: Error) => process.stderr.write(`news: fetch failed (${e.message}); serving the last batch\n`));
  pollNews();
  const newsTimer = setInterval(pollNews, NEWS_POLL_MS);
  newsTimer.unref();
  return {
    market: live.market,
    clock: systemClock,
    news,
    stop: () => {
      clearInterval(newsTimer);
      live.stop();
    },
  };
}

async function startReplay(config: Config, database: Database, coins: Coin[], file: string, say: (line: string) => void): Promise<RunningMarketSource> {
  await upsertCoins(database.db, coins);
  say(`  market: loading tape ${file}…`);
  const tape = await readTape(file, { onProgress: (read, total, n) => say(`  market: tape ${Math.round((100 * read) / total)} % (${n} snapshots)`) });
  if (tape.snapshots.length === 0) throw new TapeError(`the tape ${file} holds no snapshot`);
  const replay = new ReplayMarket(coins, tape, { speed: config.replaySpeed, wall: systemClock, fiatSeed: config.simSeed });
  const minutes = Math.round((replay.endMs - replay.startMs) / 60_000);
  say(
    `  market: replaying ${tape.snapshots.length} snapshots (${minutes} min of tape from ${new Date(replay.startMs).toISOString()}) at ${config.replaySpeed}x; the service clock is tape time`,
  );
  let lastReport = 0;
  const ticker = setInterval(() => {
    replay.advance();
    const { played, total, finished } = replay.progress;
    const pct = Math.floor((100 * played) / total / 10) * 10;
    if (pct > lastReport) {
      lastReport = pct;
      say(`  market: replay ${pct} % (${played}/${total} snapshots)${finished ? ' — tape finished, prices now hold and turn stale' : ''}`);
    }
  }, 250);
  ticker.unref();
  return { market: replay.market, clock: replay.clock, stop: () => clearInterval(ticker) };
}
