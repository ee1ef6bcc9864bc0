/** Event detail `agentsTradingMarket`: the public agents holding a market (registered with the PM data module). */
import { handleFor } from '../domain/api-keys.js';
import type { AgentsTradingMarket } from '../pm/api.js';
import type { Database } from '../storage/db.js';
import { countOpenPositionsOfMarket, publicHoldersOfMarket } from '../storage/pm-positions-repo.js';

export async function agentsHoldingMarket(database: Database, source: string, slug: string): Promise<AgentsTradingMarket> {
  const [openPositions, holders] = await Promise.all([
    countOpenPositionsOfMarket(database.db, source, slug),
    publicHoldersOfMarket(database.db, source, slug),
  ]);
  return {
    openPositions,
    agents: holders.map((h) => ({ handle: handleFor(h.keyId, h.agentName), agentName: h.agentName, model: h.model, side: h.side, chosenOutcome: h.chosenOutcome, openedAt: h.openedAt })),
  };
}
