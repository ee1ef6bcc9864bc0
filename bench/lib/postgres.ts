/** A throw-away PostgreSQL database for one bench run. */
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates `paper_arena_bench_<ts>` on the server of `adminUrl`, or returns the reason
 * it could not (server unreachable, no CREATEDB right, ...).
 */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase | { skipped: string }> {
  const name = `paper_arena_bench_${Date.now()}_${process.pid}`;
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${name}"`);
  } catch (error) {
    await client.end().catch(() => undefined);
    return { skipped: error instanceof Error ? error.message || error.constructor.name : String(error) };
  }
  await client.end().catch(() => undefined);

  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
      try {
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end().catch(() => undefined);
      }
    },
  };
}
