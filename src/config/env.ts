import { existsSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { DEFAULT_COINS_PATH } from '../marketdata/coins.js';

/** The simulated market's defaults (SIM_SEED, SIM_PROFILE); the build prepares their history (src/storage/sim-template.ts). */
export const DEFAULT_SIM_SEED = 'paper-arena';
export const DEFAULT_SIM_PROFILE = 'realistic';

export type MarketDataMode = { kind: 'sim' } | { kind: 'live' } | { kind: 'replay'; file: string };

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  databasePoolMax: number;
  redisUrl: string | null;
  adminToken: string | null;
  marketData: MarketDataMode;
  /** The coin universe (default assets/coins.json). */
  coinsFile: string;
  simSeed: string;
  simProfile: 'realistic' | 'fast';
  /** Replay: tape seconds per wall second. */
  replaySpeed: number;
  /** Live: seconds between polls of the price source. */
  livePollSeconds: number;
  /** Live: top coins whose history is back-filled from the source on a cold start. */
  liveBackfillCoins: number;
  coingeckoApiKey: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  futuresOpenEnabled: boolean;
  pmOpenEnabled: boolean;
  /**
   * DEMO_KEY: mint an all-scope demo key on a fresh database and print it (null: the role's
   * default — on for `serve`, off for `api`, where it went to the production logs).
   */
  demoKey: boolean | null;
  /** AGENT_OPPORTUNITY_CAPTURE_ENABLED (supplement 1.11): off, `POST /api/agent/pm/opportunity` answers 403. */
  opportunityCaptureEnabled: boolean;
  agentRpm: number;
  tradeWpm: number;
  publicRpm: number;
  /** Open HTTP connections one process accepts; past it new connections are dropped (MAX_CONNECTIONS). */
  maxConnections: number;
  ledgerFlushMs: number;
  /**
   * Fastify's trustProxy: false; the trusted proxies' addresses / CIDRs (the client IP is then the
   * nearest X-Forwarded-For entry not among them); or true (every hop is trusted, so the leftmost
   * entry — one a client can write itself).
   */
  trustProxy: boolean | string;
  /** Built-in demo agents trade and are listed (HOUSE_AGENTS=on); off hides them. */
  houseAgents: boolean;
  /** A second, unauthenticated port serving only /metrics (any role, the worker too); null = none. */
  metricsPort: number | null;
  /** Where METRICS_PORT listens (METRICS_HOST, default HOST): a private interface when HOST is 0.0.0.0. */
  metricsHost: string;
  /** On SIGTERM an API process answers /readyz 503 but keeps serving this long before it closes. */
  shutdownDrainMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the environment once; every problem is reported together. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    // decimal digits only: Number() also reads "0x10" as 16 and "1e3" as 1000
    const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = read(name);
    if (raw === undefined) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL`);
      return null;
    }
  };

  const positive = (name: string, fallback: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || value > max) {
      problems.push(`${name} must be a number above 0 and at most ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };

  const coinsFile = (): string => {
    const raw = read('COINS_FILE');
    if (raw === undefined) return DEFAULT_COINS_PATH;
    const problem = fileProblem(resolve(raw));
    if (problem) problems.push(`COINS_FILE ${raw} ${problem}`);
    return resolve(raw);
  };

  const dataDir = (): string => {
    const dir = resolve(read('DATA_DIR') ?? './data');
    if (existsSync(dir) && !statSync(dir).isDirectory()) problems.push(`DATA_DIR ${dir} is not a directory`);
    return dir;
  };

  const marketRaw = read('MARKET_DATA') ?? 'sim';
  let marketData: MarketDataMode = { kind: 'sim' };
  if (marketRaw === 'live') marketData = { kind: 'live' };
  else if (marketRaw.startsWith('replay:') && marketRaw.length > 'replay:'.length) {
    marketData = { kind: 'replay', file: resolve(marketRaw.slice('replay:'.length)) };
    const problem = fileProblem(marketData.file);
    if (problem) problems.push(`MARKET_DATA replay tape ${marketData.file} ${problem}`);
  } else if (marketRaw !== 'sim') problems.push(`MARKET_DATA must be sim, live or replay:<file> (got "${marketRaw}")`);

  const adminToken = read('ADMIN_TOKEN') ?? null;
  if (adminToken !== null && adminToken.length < 16) problems.push('ADMIN_TOKEN must be at least 16 characters');

  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host: read('HOST') ?? '127.0.0.1',
    dataDir: dataDir(),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax: int('DATABASE_POOL_MAX', 10, 1, 500),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    adminToken,
    marketData,
    coinsFile: coinsFile(),
    simSeed: read('SIM_SEED') ?? DEFAULT_SIM_SEED,
    simProfile: oneOf('SIM_PROFILE', DEFAULT_SIM_PROFILE, ['realistic', 'fast'] as const),
    replaySpeed: positive('REPLAY_SPEED', 1, 10_000),
    // Above 110 s every price would turn stale (120 s) between two good polls.
    livePollSeconds: int('LIVE_POLL_SECONDS', 60, 15, 110),
    liveBackfillCoins: int('LIVE_BACKFILL_COINS', 20, 0, 1000),
    coingeckoApiKey: read('COINGECKO_API_KEY') ?? null,
    // warn: the terminal keeps the start banner; LOG_LEVEL=info adds one JSON line per request.
    logLevel: oneOf('LOG_LEVEL', 'warn', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    futuresOpenEnabled: bool('FUTURES_OPEN_ENABLED', true),
    pmOpenEnabled: bool('PM_OPEN_ENABLED', true),
    opportunityCaptureEnabled: bool('AGENT_OPPORTUNITY_CAPTURE_ENABLED', true),
    demoKey: read('DEMO_KEY') === undefined ? null : oneOf('DEMO_KEY', 'on', ['on', 'off'] as const) === 'on',
    agentRpm: int('AGENT_RPM', 120, 1, 1_000_000_000),
    tradeWpm: int('TRADE_WPM', 20, 1, 1_000_000_000),
    publicRpm: int('PUBLIC_RPM', 600, 1, 1_000_000_000),
    maxConnections: int('MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    ledgerFlushMs: int('LEDGER_FLUSH_MS', 250, 10, 60_000),
    trustProxy: trustProxy(read('TRUST_PROXY'), problems),
    houseAgents: oneOf('HOUSE_AGENTS', 'on', ['on', 'off'] as const) === 'on',
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS', 0, 0, 120_000),
    metricsPort: read('METRICS_PORT') === undefined ? null : int('METRICS_PORT', 0, 1, 65535),
    metricsHost: read('METRICS_HOST') ?? read('HOST') ?? '127.0.0.1',
  };
  if (config.metricsPort !== null && config.metricsPort === config.port) problems.push(`METRICS_PORT must differ from PORT (both ${config.port})`);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Defaults for tests and embedded use, with explicit overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), logLevel: 'silent', ...overrides };
}

/** Why a path the service will read as a file cannot be one, or null. */
function fileProblem(path: string): string | null {
  if (!existsSync(path)) return 'does not exist';
  return statSync(path).isFile() ? null : 'is not a file';
}

/** An IPv4 / IPv6 address, optionally with a prefix length its family allows (`10.0.0.0/8`, `::1/128`). */
function isAddressOrRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** TRUST_PROXY: true / false, or comma-separated addresses / CIDRs of the trusted proxies. */
function trustProxy(raw: string | undefined, problems: string[]): boolean | string {
  const value = raw?.toLowerCase();
  if (value === undefined || ['false', 'no', 'off', '0'].includes(value)) return false;
  if (['true', 'yes', 'on', '1'].includes(value)) return true;
  const parts = value.split(',').map((part) => part.trim());
  if (parts.every(isAddressOrRange)) return parts.join(',');
  problems.push(`TRUST_PROXY must be true, false or the proxies' addresses / CIDRs, comma-separated (got "${raw}")`);
  return false;
}
