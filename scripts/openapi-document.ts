import { EMPTY_MARKET } from '../src/marketdata/feed.js';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config/env.js';
import { openDatabase } from '../src/storage/db.js';

/** The OpenAPI document exactly as the app serves it (built on a throwaway in-memory database). */
export async function currentOpenApiDocument(): Promise<unknown> {
  const database = await openDatabase({ databaseUrl: null, pgliteDir: 'memory://' });
  const app = await buildApp({ config: testConfig(), database, adminToken: 'snapshot-admin-token-000', market: EMPTY_MARKET });
  await app.ready();
  const document = app.swagger();
  await app.close();
  await database.close();
  return JSON.parse(JSON.stringify(document));
}

export const SNAPSHOT_PATH = new URL('../openapi/openapi.snapshot.json', import.meta.url);
