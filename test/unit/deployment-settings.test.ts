import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config/env.js';
import { deploymentSettings, settingsWarnings } from '../../src/services/deployment-settings.js';

describe('settings a deployment shares (warned, not refused)', () => {
  it('names each process whose settings differ, and how; settings one side does not carry (a worker has no rate budgets) are not compared', () => {
    const api = deploymentSettings(testConfig({ houseAgents: true, futuresOpenEnabled: true, agentRpm: 120 }), 'api');
    const otherApi = deploymentSettings(testConfig({ houseAgents: false, futuresOpenEnabled: false, agentRpm: 5 }), 'api');
    const worker = deploymentSettings(testConfig({ houseAgents: true, futuresOpenEnabled: true, agentRpm: 999 }), 'worker');
    expect(worker).not.toHaveProperty('AGENT_RPM');
    expect(settingsWarnings(otherApi, [{ name: 'paper-arena 1a2b3c4d api 101@host', settings: api }, { name: 'paper-arena 1a2b3c4d worker 102@host', settings: worker }])).toEqual([
      'paper-arena 1a2b3c4d api 101@host runs with other settings: AGENT_RPM 120 there, 5 here; FUTURES_OPEN_ENABLED on there, off here; HOUSE_AGENTS on there, off here (set them the same on every process)',
      'paper-arena 1a2b3c4d worker 102@host runs with other settings: FUTURES_OPEN_ENABLED on there, off here; HOUSE_AGENTS on there, off here (set them the same on every process)',
    ]);
    expect(settingsWarnings(api, [{ name: 'w', settings: worker }])).toEqual([]);
  });
});
