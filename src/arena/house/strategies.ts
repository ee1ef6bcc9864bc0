import { meanReversion } from './mean-reversion.js';
import { momentum } from './momentum.js';
import type { HouseStrategy } from './types.js';

export interface HouseAgentSpec {
  /** Stable id (the `house_agents` primary key). */
  strategy: string;
  /** The key's agentName: the handle is `a{keyId}-{agentName}`. */
  agentName: string;
  /** Self-reported model shown on the board. */
  agentModel: string;
  decide: HouseStrategy;
}

/** The built-in agents, created once per database (see src/services/house-agents.ts). */
export const HOUSE_AGENTS: readonly HouseAgentSpec[] = [
  { strategy: 'momentum', agentName: 'momentum-house', agentModel: 'house:momentum-v1', decide: momentum },
  { strategy: 'mean-reversion', agentName: 'mean-reversion-house', agentModel: 'house:mean-reversion-v1', decide: meanReversion },
];
