/**
 * `paper-arena market record --out tape.ndjson [--minutes N] [--every S] [--no-wait] [--source sim|live]`:
 * records a market to a tape for MARKET_DATA=replay:<file>.
 * --source live polls the live sources (CoinGecko, alternative.me) every --every seconds (default 60), in real time.
 * --source sim (the default) records the simulated market of SIM_SEED / SIM_PROFILE.
 * It continues the running service's market from its stored checkpoint (DATA_DIR/sim, or
 * PostgreSQL with DATABASE_URL) when there is one, else starts it the way a first start does.
 * The simulation is deterministic, so the tape holds exactly the prices the service shows
 * over the same minutes; by default it records in real time, --no-wait computes them at once.
 */
import { join, resolve } from 'node:path';
import type { Config } from '../config/env.js';
import { loadCoins } from '../marketdata/coins.js';
import { AlternativeMeClient } from '../marketdata/live/alternative-me.js';
import { CoinGeckoClient } from '../marketdata/live/coingecko.js';
import { DEFAULT_HTTP, type FetchLike } from '../marketdata/live/http-json.js';
import { LiveMarket } from '../marketdata/live/live-market.js';
import { recordTape } from '../marketdata/replay/record.js';
import { BarBook } from '../marketdata/sim/bar-book.js';
import { backfill } from '../marketdata/sim/backfill.js';
import { minuteIndexOf } from '../marketdata/sim/params.js';
import { createSimUniverse } from '../marketdata/sim/universe.js';
import { SimMarket } from '../marketdata/sim-market.js';
import { historyStartMinute } from '../services/sim-market-boot.js';
import { openDatabase } from '../storage/db.js';
import { sqlSimStore } from '../storage/market-repo.js';
import { FileSimStore } from '../storage/sim-file-store.js';
import type { SimCheckpoint } from '../storage/sim-store.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';
import { systemClock } from '../util/clock.js';
import { CliError, type Flags } from './args.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
const USAGE = 'usage: market record --out tape.ndjson [--minutes 60] [--every 10] [--no-wait] [--source sim|live]';

/** How live sources are reached; tests answer without a network and without waiting. */
export interface LiveHttp {
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
}

async function recordLive(
  config: Config,
  file: string,
  minutes: number,
  everySeconds: number,
  startMs: number,
  waitUntil: (t: number) => Promise<void>,
  liveHttp: LiveHttp,
): Promise<number> {
  // A held timer: nothing else keeps the CLI alive, and the service's unref'd retry wait let the
  // process end silently, exit 0 and no tape, the first time a source needed a retry.
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const http = { ...DEFAULT_HTTP, sleep, fetch: globalThis.fetch as unknown as FetchLike, ...liveHttp };
  const live = new LiveMarket({
    coins: loadCoins(config.coinsFile),
    prices: new CoinGeckoClient({ http, apiKey: config.coingeckoApiKey }),
    fearGreed: new AlternativeMeClient(http),
    clock: systemClock,
    pollMs: everySeconds * 1000,
    log: (_level, message) => process.stderr.write(`${message}\n`),
  });
  // A first poll before any file is written: without prices there is nothing to record.
  const first = await live.poll().catch((error: unknown) => ({ ok: false, coins: 0, errors: [(error as Error).message] }));
  if (first.coins === 0) {
    throw new CliError(
      `market: the live sources answered no prices (${first.errors.join('; ') || 'no coins mapped'}); no tape written. ` +
        'Check the network (CoinGecko, alternative.me), or record the simulated market with --source sim.',
    );
  }
  out(`market: recording the live sources for ${minutes} min, a poll every ${everySeconds} s, to ${resolve(file)}`);
  const snapshots = await recordTape({
    market: live.market,
    advanceTo: async () => void (await live.poll()),
    out: file,
    source: 'live:coingecko',
    startMs,
    minutes,
    everySeconds,
    waitUntil,
    say: out,
  });
  out(`market: wrote ${snapshots} snapshots; replay with MARKET_DATA=replay:${file}`);
  return 0;
}

function intFlag(flags: Flags, name: string, fallback: number, min: number, max: number): number {
  const raw = flags.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw === true || !Number.isInteger(value) || value < min || value > max) throw new CliError(`--${name} must be an integer between ${min} and ${max}`);
  return value;
}

async function loadCheckpoint(config: Config): Promise<SimCheckpoint | null> {
  try {
    if (config.databaseUrl === null) return await new FileSimStore(join(config.dataDir, 'sim')).load();
    const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: '', poolMax: 2 });
    try {
      return await sqlSimStore(database.db).load();
    } finally {
      await database.close();
    }
  } catch {
    return null; // no readable checkpoint: start the market fresh
  }
}

/** The simulated market at nowMs: resumed from the service's checkpoint when it matches, else back-filled. */
export async function openSimMarket(config: Config, nowMs: number, checkpoint: SimCheckpoint | null): Promise<{ market: SimMarket; resumed: boolean }> {
  const coins = loadCoins(config.coinsFile);
  const universeHash = sha256Hex(canonicalJson(coins)).slice(0, 16);
  const nowMinute = minuteIndexOf(nowMs);
  if (
    checkpoint &&
    checkpoint.seed === config.simSeed &&
    checkpoint.profile === config.simProfile &&
    checkpoint.universeHash === universeHash &&
    checkpoint.state.minuteIndex >= historyStartMinute(nowMs) &&
    checkpoint.state.minuteIndex <= nowMinute
  ) {
    const market = new SimMarket(createSimUniverse(coins, config.simSeed, config.simProfile), checkpoint.state, BarBook.fromRows(coins.length, checkpoint.rows));
    return { market, resumed: true };
  }
  const result = backfill(coins, config.simSeed, historyStartMinute(nowMs), nowMinute, { profile: config.simProfile });
  const book = new BarBook(coins.length);
  book.mergeSeries(result.series);
  return { market: new SimMarket(result.universe, result.state, book), resumed: false };
}

export async function runMarketCommand(config: Config, sub: string | undefined, flags: Flags, liveHttp: LiveHttp = {}): Promise<number> {
  if (sub !== 'record') throw new CliError(USAGE);
  const source = flags.get('source') ?? 'sim';
  if (source !== 'sim' && source !== 'live') throw new CliError('--source must be sim or live');
  const file = flags.get('out');
  if (typeof file !== 'string' || file === '') throw new CliError('--out <file> is required');
  const minutes = intFlag(flags, 'minutes', 60, 1, 7 * 1440);
  const everySeconds = intFlag(flags, 'every', source === 'live' ? 60 : 10, source === 'live' ? 15 : 1, 3600);
  const wait = !flags.has('no-wait');
  if (source === 'live' && !wait) throw new CliError('--no-wait records the simulated market only: the live sources are polled in real time');
  const nowMs = Date.now();
  const startMs = Math.ceil(nowMs / (everySeconds * 1000)) * everySeconds * 1000;
  const waitUntil = (t: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, t - Date.now())));
  if (source === 'live') return recordLive(config, file, minutes, everySeconds, startMs, waitUntil, liveHttp);
  out(`market: opening the simulated market (seed ${config.simSeed}, profile ${config.simProfile})…`);
  const { market, resumed } = await openSimMarket(config, nowMs, await loadCheckpoint(config));
  out(`market: ${resumed ? "continuing the service's stored market" : 'no stored market found; started one like a first start'}`);
  out(`market: recording ${minutes} min every ${everySeconds} s to ${resolve(file)}${wait ? ' in real time (--no-wait computes it at once)' : ''}`);
  const snapshots = await recordTape({
    market,
    advanceTo: (t) => market.advanceTo(t),
    out: file,
    source: `sim:${config.simSeed}`,
    startMs,
    minutes,
    everySeconds,
    waitUntil: wait ? waitUntil : undefined,
    say: out,
  });
  out(`market: wrote ${snapshots} snapshots; replay with MARKET_DATA=replay:${file}`);
  return 0;
}
