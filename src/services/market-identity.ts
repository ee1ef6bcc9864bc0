/**
 * Every process of a deployment on one PostgreSQL database must serve the same market: the
 * api processes quote from their own copy of it and the worker's jobs (matcher, risk, house
 * agents, PM questions) trade from theirs. A worker started with another SIM_SEED filled orders
 * and liquidated positions at prices no api ever served, and its start replaced the shared
 * market checkpoint. A starting process compares its settings with the recorded ones and is
 * refused while processes with other settings run; alone, it records its own (a deliberate
 * change of settings on a restart).
 */
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { Config } from '../config/env.js';
import type { Coin } from '../marketdata/coins.js';
import type { Queryable } from '../storage/db.js';
import { readMarketIdentity, recordMarketIdentity } from '../storage/market-identity-repo.js';
import { otherProcessNames, PROCESS_NAME_PREFIX } from '../storage/presence-repo.js';
import { simMeta } from './sim-market-boot.js';

export class MarketIdentityError extends Error {}

export type MarketIdentity = Record<string, string>;

/** The name a server process gives its PostgreSQL connections (how other processes see it). */
export const processName = (role: string): string => `${PROCESS_NAME_PREFIX}${role} ${process.pid}@${hostname()}`;

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

/** The settings on which `own` differs from `recorded`, in a stable order. */
export function differingSettings(recorded: MarketIdentity, own: MarketIdentity): string[] {
  return [...new Set([...Object.keys(recorded), ...Object.keys(own)])].filter((k) => recorded[k] !== own[k]).sort();
}

/** Records this process's market settings, or refuses the start while processes with other settings use the database. */
export async function claimMarketIdentity(db: Queryable, own: MarketIdentity, self: string): Promise<void> {
  const [recorded, others] = await Promise.all([readMarketIdentity(db), otherProcessNames(db, self)]);
  const differing = recorded ? differingSettings(recorded, own) : [];
  if (differing.length > 0 && others.length > 0) {
    const what = differing.map((k) => `${k} ${recorded![k] ?? '(unset)'} there, ${own[k] ?? '(unset)'} here`).join('; ');
    throw new MarketIdentityError(
      `the processes running on this database (${others.join(', ')}) serve another market: ${what}. Every process of a deployment needs the same MARKET_DATA, SIM_SEED, SIM_PROFILE and COINS_FILE`,
    );
  }
  if (!recorded || differing.length > 0) await recordMarketIdentity(db, own);
}
