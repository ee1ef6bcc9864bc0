/**
 * How house (demo) agents sit on the Arena board (contract §4.2 rule 2: "Demo rows ignore
 * windowing"). Pure: the board service applies it.
 *
 * - Demo rows carry their all-time figures on every window and rank after every live row of
 *   the same qualification: a qualified house agent ranks above a live agent below 5 decided
 *   trades (contract §3), never above a qualified one (rankDelta is null on demo rows).
 * - They step aside once HOUSE_STEP_ASIDE_LIVE_AGENTS live agents each have at least
 *   QUALIFICATION_DECIDED_TRADES decided trades all-time: from then on no house row is listed
 *   (their profiles still answer, ranked after every listed row: they stay public agents).
 * - The board's `source` is `demo` while every listed row is a house agent, else `live`.
 */
import { QUALIFICATION_DECIDED_TRADES } from '../ranking.js';

export const HOUSE_STEP_ASIDE_LIVE_AGENTS = 3;

/** Do the house agents leave the board, given the live agents' all-time decided-trade counts? */
export function houseStepsAside(liveAllTimeDecided: readonly number[]): boolean {
  return liveAllTimeDecided.filter((d) => d >= QUALIFICATION_DECIDED_TRADES).length >= HOUSE_STEP_ASIDE_LIVE_AGENTS;
}

export function boardSource(listedLive: number, listedDemo: number): 'live' | 'demo' {
  return listedLive === 0 && listedDemo > 0 ? 'demo' : 'live';
}
