/**
 * Every process of a deployment on one PostgreSQL database must serve the same market: the
 * api processes quote from their own copy of it and the worker's jobs (matcher, risk, house
 * agents, PM questions) trade from theirs. A worker started with another SIM_SEED filled orders
 * and liquidated positions at prices no api ever served, and replaced the shared market
 * checkpoint. Each server process carries a hash of its market settings in the name of its
 * connections (application_name); a starting process is refused while a connected process
 * carries another hash. Processes that all change their settings together start together.
 */
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { Config } from '../config/env.js';
import type { Coin } from '../marketdata/coins.js';
import type { Queryable } from '../storage/db.js';
import { readMarketIdentity, recordMarketIdentity } from '../storage/market-identity-repo.js';
import { otherProcessNames, PROCESS_NAME_PREFIX } from '../storage/presence-repo.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';
import { simMeta } from './sim-market-boot.js';

export class MarketIdentityError extends Error {}

export type MarketIdentity = Record<string, string>;

/** PostgreSQL keeps 63 bytes of an application_name. */
const NAME_MAX = 63;

/** The settings that decide the prices a process serves and trades at, as the operator sets them. */
export function marketIdentity(config: Pick<Config, 'marketData' | 'simSeed' | 'simProfile'>, coins: readonly Coin[]): MarketIdentity {
  const mode = config.marketData;
  return {
    MARKET_DATA: mode.kind === 'replay' ? `replay:${basename(mode.file)}` : mode.kind,
    // the seed also draws the fiat rates in every mode
    SIM_SEED: config.simSeed,
    ...(mode.kind === 'sim' ? { SIM_PROFILE: config.simProfile } : {}),
    COINS_FILE: `${coins.length} coins #${simMeta(coins, config.simSeed, config.simProfile).universeHash}`,
  };
}

export const identityHash = (identity: MarketIdentity): string => sha256Hex(canonicalJson(identity)).slice(0, 8);

/**
 * The name a server process gives its PostgreSQL connections, as PostgreSQL will store it (cut to
 * 63 bytes, so the process recognises its own): `paper-arena <settings hash> <role> <pid>@<host>`.
 */
export function processName(role: string, identity: MarketIdentity, pid = process.pid, host = hostname()): string {
  return Buffer.from(`${PROCESS_NAME_PREFIX}${identityHash(identity)} ${role} ${pid}@${host}`).subarray(0, NAME_MAX).toString();
}

/** The settings hash a process name carries. */
const hashOfName = (name: string): string => name.slice(PROCESS_NAME_PREFIX.length).split(' ')[0] ?? '';

/** The settings on which `own` differs from `theirs`, in a stable order. */
export function differingSettings(theirs: MarketIdentity, own: MarketIdentity): string[] {
  return [...new Set([...Object.keys(theirs), ...Object.keys(own)])].filter((k) => theirs[k] !== own[k]).sort();
}

/** Refuses the start while a connected process serves another market; records this process's settings (so others can name them). */
export async function claimMarketIdentity(db: Queryable, own: MarketIdentity, self: string): Promise<void> {
  const hash = identityHash(own);
  await recordMarketIdentity(db, hash, own);
  const others = (await otherProcessNames(db, self)).filter((name) => hashOfName(name) !== hash);
  if (others.length === 0) return;
  const theirs = await readMarketIdentity(db, hashOfName(others[0]!));
  const what = theirs ? differingSettings(theirs, own).map((k) => `${k} ${theirs[k] ?? '(unset)'} there, ${own[k] ?? '(unset)'} here`).join('; ') : 'other settings';
  throw new MarketIdentityError(
    `the processes running on this database (${others.join(', ')}) serve another market: ${what}. Every process of a deployment needs the same MARKET_DATA, SIM_SEED, SIM_PROFILE and COINS_FILE`,
  );
}
