import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../support/app.js';
import { agentKey, trades } from '../support/arena.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('Owners edit competitions, take entries out and delete ones not yet started', { timeout: 120_000 }, () => {
  let t: TestApp;
  let ace: number;
  let bee: number;
  let now: number;
  const iso = (ms: number) => new Date(ms).toISOString();
  const admin = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    const res = await t.app.inject({ method, url, headers: adminHeaders, payload: payload as object });
    return { status: res.statusCode, body: res.json() };
  };
  const board = async (slug: string) => (await t.app.inject({ method: 'GET', url: `/api/competitions/${slug}` })).json();
  const publicSlugs = async () => (await t.app.inject({ method: 'GET', url: '/api/competitions' })).json().competitions.map((c: { slug: string }) => c.slug);
  const create = async (slug: string, startsAt: number, endsAt: number) =>
    expect((await admin('POST', '/api/admin/competitions', { slug, title: slug, startsAt: iso(startsAt), endsAt: iso(endsAt) })).status).toBe(201);

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    now = t.clock.now();
    ace = await agentKey(db, 'Ace');
    bee = await agentKey(db, 'Bee');
    await trades(db, ace, 'spot', [100], now - HOUR);
    await trades(db, bee, 'spot', [200], now - HOUR);
    await create('running', now - DAY, now + DAY);
    await create('soon', now + DAY, now + 2 * DAY);
    for (const keyId of [ace, bee]) {
      expect((await admin('POST', '/api/admin/competitions/running/entries', { keyId })).status).toBe(200);
      expect((await admin('POST', '/api/admin/competitions/soon/entries', { keyId })).status).toBe(200);
    }
  }, 300_000);
  afterAll(() => t?.close(), 120_000);

  it('edits title, description and visibility; the public list follows', async () => {
    const edited = await admin('PATCH', '/api/admin/competitions/running', { title: 'Running Cup', description: 'two days', visibility: 'featured' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ slug: 'running', name: 'Running Cup', description: 'two days', visibility: 'public', featured: true, status: 'active', entryCount: 2 });
    expect(await publicSlugs()).toEqual(['running', 'soon']);
    expect((await admin('PATCH', '/api/admin/competitions/soon', { visibility: 'unlisted', description: null })).body).toMatchObject({ visibility: 'unlisted', description: null });
    expect(await publicSlugs()).toEqual(['running']);
    expect((await admin('PATCH', '/api/admin/competitions/soon', { visibility: 'public' })).status).toBe(200);
  });

  it('moves the end of a running competition but not its start; moves the start of one not yet started', async () => {
    const longer = await admin('PATCH', '/api/admin/competitions/running', { endsAt: iso(now + 3 * DAY) });
    expect([longer.status, longer.body.endsAt]).toEqual([200, iso(now + 3 * DAY)]);
    const start = await admin('PATCH', '/api/admin/competitions/running', { startsAt: iso(now - 2 * DAY) });
    expect([start.status, start.body.error, start.body.field]).toEqual([409, 'competition_started', 'body.startsAt']);
    // a start sent unchanged beside a new end is no move
    expect((await admin('PATCH', '/api/admin/competitions/running', { startsAt: iso(now - DAY), endsAt: iso(now + 2 * DAY) })).status).toBe(200);
    const earlier = await admin('PATCH', '/api/admin/competitions/soon', { startsAt: iso(now + HOUR) });
    expect([earlier.status, earlier.body.startsAt, earlier.body.status]).toEqual([200, iso(now + HOUR), 'upcoming']);
  });

  it('keeps create rules for a window, refuses an empty or unknown edit, 404s an unknown slug', async () => {
    for (const [body, field] of [
      [{ endsAt: iso(now - HOUR) }, 'body.endsAt'], // over before anyone can enter
      [{ endsAt: iso(now + 400 * DAY) }, 'body.endsAt'], // longer than a year of daily figures
      [{ startsAt: iso(now + 5 * DAY) }, 'body.endsAt'], // after its end
      [{ title: '   ' }, 'body.title'],
      [{}, 'body'],
    ] as const) {
      const res = await admin('PATCH', '/api/admin/competitions/soon', body);
      expect([res.status, res.body.error, res.body.field], JSON.stringify(body)).toEqual([400, 'invalid_request', field]);
    }
    const unknown = await admin('PATCH', '/api/admin/competitions/soon', { slug: 'renamed' });
    expect([unknown.status, unknown.body.field]).toEqual([400, 'body.slug']);
    expect((await admin('PATCH', '/api/admin/competitions/nope', { title: 'x' })).body.error).toBe('competition_not_found');
    expect((await admin('PATCH', `/api/admin/competitions/${'x'.repeat(81)}`, { title: 'x' })).body.field).toBe('params.slug'); // malformed: 400, as on the public read
    expect((await admin('GET', '/api/admin/competitions')).body.competitions.find((c: { slug: string }) => c.slug === 'soon')).toMatchObject({ name: 'soon', startsAt: iso(now + HOUR) });
    expect((await t.app.inject({ method: 'PATCH', url: '/api/admin/competitions/soon', payload: { title: 'x' } })).statusCode).toBe(401);
  });

  it('takes an entry out: the board and counts leave it out; a second removal is 404', async () => {
    expect((await board('running')).rows.map((r: { handle: string }) => r.handle)).toEqual([`a${bee}-bee`, `a${ace}-ace`]);
    const removed = await admin('DELETE', `/api/admin/competitions/running/entries/${bee}`);
    expect(removed).toEqual({ status: 200, body: { slug: 'running', keyId: bee, removedAt: iso(now) } });
    const after = await board('running');
    expect(after.rows.map((r: { handle: string; rank: number }) => [r.handle, r.rank])).toEqual([[`a${ace}-ace`, 1]]);
    expect(after.competition.entryCount).toBe(1);
    expect((await admin('GET', '/api/admin/competitions')).body.competitions.find((c: { slug: string }) => c.slug === 'running').entrantCount).toBe(1);
    expect((await admin('DELETE', `/api/admin/competitions/running/entries/${bee}`)).body.error).toBe('entry_not_found');
    expect((await admin('DELETE', `/api/admin/competitions/nope/entries/${bee}`)).body.error).toBe('competition_not_found');
    expect((await admin('DELETE', '/api/admin/competitions/running/entries/0')).body.error).toBe('entry_not_found'); // as rotate/0 and revoke/0
    // entering again is a fresh entry
    expect((await admin('POST', '/api/admin/competitions/running/entries', { keyId: bee })).status).toBe(200);
  });

  it('deletes a competition only before it starts, entries and all', async () => {
    await create('typo', now + DAY, now + 2 * DAY);
    expect((await admin('POST', '/api/admin/competitions/typo/entries', { keyId: ace })).status).toBe(200);
    expect(await admin('DELETE', '/api/admin/competitions/typo')).toEqual({ status: 200, body: { slug: 'typo', deletedAt: iso(now) } });
    expect((await t.app.inject({ method: 'GET', url: '/api/competitions/typo' })).statusCode).toBe(404);
    expect((await admin('DELETE', '/api/admin/competitions/typo')).body.error).toBe('competition_not_found');
    // the slug is free again, with no entries left behind
    await create('typo', now + DAY, now + 2 * DAY);
    expect((await admin('GET', '/api/admin/competitions')).body.competitions.find((c: { slug: string }) => c.slug === 'typo').entrantCount).toBe(0);
    const started = await admin('DELETE', '/api/admin/competitions/running');
    expect([started.status, started.body.error]).toEqual([409, 'competition_started']);
    expect((await board('running')).rows).toHaveLength(2);
  });

  it('after the end: the window and the entries are final; the title may still change', async () => {
    const endsAt = Date.parse((await board('running')).competition.endsAt);
    t.clock.set(endsAt + HOUR);
    const frozen = await board('running');
    expect(frozen.competition.status).toBe('ended');
    const extend = await admin('PATCH', '/api/admin/competitions/running', { endsAt: iso(endsAt + 5 * DAY) });
    expect([extend.status, extend.body.error, extend.body.field]).toEqual([409, 'competition_ended', 'body.endsAt']);
    const out = await admin('DELETE', `/api/admin/competitions/running/entries/${ace}`);
    expect([out.status, out.body.error]).toEqual([409, 'competition_ended']);
    expect((await admin('PATCH', '/api/admin/competitions/running', { title: 'Running Cup 2026' })).body.name).toBe('Running Cup 2026');
    const after = await board('running');
    expect(after.rows).toEqual(frozen.rows);
    expect(after.competition).toEqual({ ...frozen.competition, name: 'Running Cup 2026' });
  });
});
