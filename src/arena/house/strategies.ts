import { futuresTrend } from './futures-trend.js';
import { meanReversion } from './mean-reversion.js';
import { momentum } from './momentum.js';
import type { HouseFuturesStrategy, HouseStrategy } from './types.js';

interface SpecBase {
  /** Stable id (the `house_agents` primary key). */
  strategy: string;
  /** The key's agentName: the handle is `a{keyId}-{agentName}`. */
  agentName: string;
  /** Self-reported model shown on the board. */
  agentModel: string;
}

export type HouseAgentSpec =
  | (SpecBase & { venue: 'spot'; decide: HouseStrategy })
  | (SpecBase & { venue: 'futures'; decide: HouseFuturesStrategy })
  /** Steps in its own job (src/services/house-pm-forecaster.ts): it reads PM markets, not coins. */
  | (SpecBase & { venue: 'pm' });

/** The built-in agents, created once per database (see src/services/house-agents.ts). */
export const HOUSE_AGENTS: readonly HouseAgentSpec[] = [
  { strategy: 'momentum', venue: 'spot', agentName: 'momentum-house', agentModel: 'house:momentum-v1', decide: momentum },
  { strategy: 'mean-reversion', venue: 'spot', agentName: 'mean-reversion-house', agentModel: 'house:mean-reversion-v1', decide: meanReversion },
  { strategy: 'futures-trend', venue: 'futures', agentName: 'futures-trend-house', agentModel: 'house:futures-trend-v1', decide: futuresTrend },
  { strategy: 'pm-forecaster', venue: 'pm', agentName: 'pm-forecaster-house', agentModel: 'house:pm-forecaster-v1' },
];
