/**
 * Settings every process of a deployment should share that do not change the market (which
 * market-identity.ts enforces): behind one balancer, api processes with different values
 * answered differently — one listed the house agents, another none; one allowed futures opens,
 * another 403. They may differ for a moment while a fleet is restarted with new values, so a
 * starting process warns instead of refusing.
 */
import type { Config } from '../config/env.js';
import type { Role } from '../config/role-defaults.js';
import type { Queryable } from '../storage/db.js';
import { otherProcessNames } from '../storage/presence-repo.js';
import { processSettingsOf, recordProcessSettings } from '../storage/process-settings-repo.js';

export type DeploymentSettings = Record<string, string>;

/** What this process runs with; the rate budgets only where requests are served. */
export function deploymentSettings(
  config: Pick<Config, 'houseAgents' | 'futuresOpenEnabled' | 'pmOpenEnabled' | 'opportunityCaptureEnabled' | 'agentRpm' | 'tradeWpm' | 'publicRpm'>,
  role: Role,
): DeploymentSettings {
  const flag = (on: boolean) => (on ? 'on' : 'off');
  return {
    HOUSE_AGENTS: flag(config.houseAgents),
    FUTURES_OPEN_ENABLED: flag(config.futuresOpenEnabled),
    PM_OPEN_ENABLED: flag(config.pmOpenEnabled),
    AGENT_OPPORTUNITY_CAPTURE_ENABLED: flag(config.opportunityCaptureEnabled),
    ...(role === 'worker' ? {} : { AGENT_RPM: String(config.agentRpm), TRADE_WPM: String(config.tradeWpm), PUBLIC_RPM: String(config.publicRpm) }),
  };
}

/** One warning per other process whose settings differ on a setting both carry. */
export function settingsWarnings(own: DeploymentSettings, others: { name: string; settings: DeploymentSettings }[]): string[] {
  const warnings: string[] = [];
  for (const other of others) {
    const differing = Object.keys(own)
      .filter((k) => k in other.settings && other.settings[k] !== own[k])
      .sort()
      .map((k) => `${k} ${other.settings[k]} there, ${own[k]} here`);
    if (differing.length > 0) warnings.push(`${other.name} runs with other settings: ${differing.join('; ')} (set them the same on every process)`);
  }
  return warnings;
}

/** Records this process's settings under its connection name and compares them with the connected processes'. */
export async function checkDeploymentSettings(db: Queryable, own: DeploymentSettings, name: string): Promise<string[]> {
  await recordProcessSettings(db, name, own);
  return settingsWarnings(own, await processSettingsOf(db, await otherProcessNames(db, name)));
}
