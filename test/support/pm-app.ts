import { PmIngest } from '../../src/pm/ingest.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';

export interface PmTestApp extends TestApp {
  ingest: PmIngest;
  get<T = Record<string, any>>(url: string, headers?: Record<string, string>): Promise<{ status: number; body: T; headers: Record<string, unknown> }>;
}

/** A test app whose PM data comes from the simulator (fast profile), back-filled at the test clock. */
export async function createPmApp(options: TestAppOptions & { seed?: string } = {}): Promise<PmTestApp> {
  const t = await createTestApp(options);
  const ingest = new PmIngest(t.ctx.database, { seed: options.seed ?? 'pm-test', profile: 'fast', backfillWindowMs: 8 * 86_400_000 });
  await ingest.run(t.clock.now()); // back-fill
  while ((await ingest.drainBackfill(10_000)) > 0);
  await ingest.run(t.clock.now()); // first regular pass
  return {
    ...t,
    ingest,
    async get(url, headers = {}) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null, headers: res.headers };
    },
  };
}
