import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrateAndCheck, migrationFiles, NewerSchemaError } from '../../src/storage/migrate.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await freshDatabase();
});
afterAll(async () => testDb.drop());

const appliedNames = async () =>
  ((await testDb.database.db.execute(sql`select name from schema_migrations order by name`)) as unknown as { rows: { name: string }[] }).rows.map((r) => r.name);

describe('migrations', () => {
  it('a migrated database is left as it is by a second run', async () => {
    expect(await migrate(testDb.database.db)).toEqual([]);
    expect(await appliedNames()).toEqual(migrationFiles().map((f) => f.name));
  });

  it('a database a newer version migrated is refused, naming the newest migration (an older build started on it silently)', async () => {
    await testDb.database.db.execute(sql`insert into schema_migrations (name) values ('9998_from_a_later_version.sql'), ('9999_from_a_later_version.sql')`);
    try {
      const refusal = await migrate(testDb.database.db).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(NewerSchemaError);
      expect((refusal as Error).message).toContain('newer version of Paper Arena (9999_from_a_later_version.sql');
      expect((refusal as Error).message).toContain(`knows up to ${migrationFiles().at(-1)!.name}`);
    } finally {
      await testDb.database.db.execute(sql`delete from schema_migrations where name like '999%'`);
    }
    expect(await migrate(testDb.database.db)).toEqual([]);
  });

  it('names an applied migration whose file changed since (tracked by name, it never runs again); fills in a missing checksum', async () => {
    const db = testDb.database.db;
    const [first, second] = migrationFiles().map((f) => f.name);
    expect(await migrateAndCheck(db)).toEqual({ applied: [], changed: [] });
    // applied by an earlier text of the file; and one applied by a version that kept no checksums
    await db.execute(sql`update schema_migrations set checksum = 'earlier text' where name = ${first}`);
    await db.execute(sql`update schema_migrations set checksum = null where name = ${second}`);
    expect(await migrateAndCheck(db)).toEqual({ applied: [], changed: [first] });
    const [kept] = ((await db.execute(sql`select checksum from schema_migrations where name = ${second}`)) as unknown as { rows: { checksum: string | null }[] }).rows;
    expect(kept!.checksum).toMatch(/^[0-9a-f]{64}$/);
    await db.execute(sql`update schema_migrations set checksum = null where name = ${first}`);
    expect(await migrateAndCheck(db)).toEqual({ applied: [], changed: [] });
  });
});
