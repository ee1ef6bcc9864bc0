import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkDeploymentSettings } from '../../src/services/deployment-settings.js';
import type { Database } from '../../src/storage/db.js';
import { otherProcessNames } from '../../src/storage/presence-repo.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';

describe.skipIf(!TEST_DATABASE_URL)('deployment settings compared at start (PostgreSQL)', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await freshDatabase();
  });
  afterAll(async () => testDb?.drop());

  const allGone = () => vi.waitFor(async () => expect(await otherProcessNames(testDb.database.db, '')).toEqual([]), { timeout: 10_000, interval: 50 });

  it('warns a process started with other settings than a connected one (one api listed house agents, another none); processes gone are not compared', async () => {
    const open: Database[] = [];
    const start = async (name: string, settings: Record<string, string>) => {
      const database = await testDb.openAnother({ applicationName: name });
      open.push(database);
      return checkDeploymentSettings(database.db, settings, name);
    };
    try {
      expect(await start('paper-arena 00000000 api 1@h', { HOUSE_AGENTS: 'on', AGENT_RPM: '120' })).toEqual([]);
      expect(await start('paper-arena 00000000 api 2@h', { HOUSE_AGENTS: 'off', AGENT_RPM: '120' })).toEqual([
        'paper-arena 00000000 api 1@h runs with other settings: HOUSE_AGENTS on there, off here (set them the same on every process)',
      ]);
      await open.shift()!.close();
      await open.shift()!.close();
      await allGone();
      // the first two are gone: a third with yet other settings is alone
      expect(await start('paper-arena 00000000 api 3@h', { HOUSE_AGENTS: 'on', AGENT_RPM: '5' })).toEqual([]);
    } finally {
      for (const database of open) await database.close();
    }
  });
});
