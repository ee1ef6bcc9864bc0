import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteUpcomingCompetition, deleteEntry, findCompetition, insertCompetition, insertEntry, listEntrants, updateCompetition } from '../../src/storage/competitions-repo.js';
import { enterCompetition } from '../../src/services/competitions.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { agentKey } from '../support/arena.js';

const NOW = Date.UTC(2026, 10, 27, 12);
const HOUR = 3_600_000;

/** The guards in the competition writes, each met by a write decided on a read that another write made stale. */
describe('competition writes decided on a stale read', () => {
  let t: TestDatabase;
  let key: number;
  beforeAll(async () => {
    t = await freshDatabase();
    key = await agentKey(t.database.db, 'Racer');
  });
  afterAll(() => t?.drop());

  const create = async (slug: string, startsAtMs: number, endsAtMs: number) =>
    (await insertCompetition(t.database.db, { slug, name: slug, description: null, visibility: 'public', featured: false, startsAtMs, endsAtMs, createdAtMs: NOW }))!;

  it('an edit based on a read another edit has changed writes nothing (a concurrent title change was reverted)', async () => {
    const db = t.database.db;
    const read = await create('edits', NOW - HOUR, NOW + HOUR);
    const fields = { name: read.name, description: read.description, visibility: read.visibility, featured: read.featured, startsAtMs: read.startsAtMs, endsAtMs: read.endsAtMs };
    expect(await updateCompetition(db, read, { ...fields, name: 'First' }, NOW)).toBe(true);
    expect(await updateCompetition(db, read, { ...fields, description: 'second' }, NOW)).toBe(false);
    expect((await findCompetition(db, 'edits'))!).toMatchObject({ name: 'First', description: null });
  });

  it('a window edit writes nothing once the competition ended, or (its start) started, by the write', async () => {
    const db = t.database.db;
    const read = await create('window', NOW + HOUR, NOW + 2 * HOUR);
    const fields = { name: read.name, description: read.description, visibility: read.visibility, featured: read.featured, startsAtMs: read.startsAtMs, endsAtMs: read.endsAtMs };
    expect(await updateCompetition(db, read, { ...fields, startsAtMs: NOW + 90 * 60_000 }, NOW + HOUR)).toBe(false); // started at the write
    expect(await updateCompetition(db, read, { ...fields, endsAtMs: NOW + 3 * HOUR }, NOW + 2 * HOUR)).toBe(false); // ended at the write
    expect(await updateCompetition(db, read, { ...fields, endsAtMs: NOW + 3 * HOUR }, NOW)).toBe(true);
  });

  it('a delete decided before the start removes nothing once it started; an entry goes with a deleted competition', async () => {
    const db = t.database.db;
    const started = await create('started', NOW + HOUR, NOW + 2 * HOUR);
    expect(await deleteUpcomingCompetition(db, started.id, NOW + HOUR)).toBe(false);
    expect(await findCompetition(db, 'started')).not.toBeNull();
    const doomed = await create('doomed', NOW + HOUR, NOW + 2 * HOUR);
    expect(await insertEntry(db, doomed.id, key, NOW)).toBe(NOW);
    expect(await deleteUpcomingCompetition(db, doomed.id, NOW)).toBe(true);
    expect(await listEntrants(db, doomed.id)).toEqual([]);
    // an entry racing the delete finds the competition gone: no entry, and a 404 rather than a 500
    expect(await insertEntry(db, doomed.id, key, NOW)).toBeNull();
    await expect(enterCompetition(db, doomed.slug, key, NOW)).rejects.toMatchObject({ statusCode: 404, code: 'competition_not_found' });
  });

  it('an entry is not removed once the competition ended by the write', async () => {
    const db = t.database.db;
    const c = await create('ending', NOW - HOUR, NOW + HOUR);
    await insertEntry(db, c.id, key, NOW);
    expect(await deleteEntry(db, c.id, key, NOW + HOUR)).toBe(false);
    expect(await deleteEntry(db, c.id, key, NOW)).toBe(true);
  });
});
