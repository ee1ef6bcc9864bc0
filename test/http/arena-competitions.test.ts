import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOARD_SETTLE_MS } from '../../src/services/arena-board.js';
import { updateKey } from '../../src/storage/keys-repo.js';
import { adminHeaders, createTestApp, type TestApp } from '../support/app.js';
import { agentKey, trade, trades } from '../support/arena.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('Competitions', { timeout: 120_000 }, () => {
  let t: TestApp;
  let a: number;
  let b: number;
  let c: number;
  let outsider: number;
  let start: number;
  const iso = (ms: number) => new Date(ms).toISOString();
  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: adminHeaders, payload: payload as object });
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.testDb.database.db;
    start = t.clock.now() - DAY;
    a = await agentKey(db, 'Ace', { model: 'm1' });
    b = await agentKey(db, 'Bee');
    c = await agentKey(db, 'Cee');
    outsider = await agentKey(db, 'Outsider');
    const cup = await admin('POST', '/api/admin/competitions', {
      slug: 'winter-cup',
      title: 'Winter Cup',
      description: 'three days',
      startsAt: iso(start),
      endsAt: iso(start + 3 * DAY),
      visibility: 'featured',
    });
    expect(cup.statusCode).toBe(201);
    expect(cup.json()).toMatchObject({ slug: 'winter-cup', name: 'Winter Cup', featured: true, visibility: 'public', status: 'active', entryCount: 0 });
    for (const keyId of [a, b, c]) expect((await admin('POST', '/api/admin/competitions/winter-cup/entries', { keyId })).statusCode).toBe(200);
    await admin('POST', '/api/admin/competitions', { slug: 'secret', title: 'Secret', startsAt: iso(start), endsAt: iso(start + 2 * DAY), visibility: 'unlisted' });
    await admin('POST', '/api/admin/competitions', { slug: 'later', title: 'Later', startsAt: iso(start + 10 * DAY), endsAt: iso(start + 11 * DAY) });
    // Before the window: never counts. Inside: counts. Outsider is not entered.
    await trade(db, a, 'spot', 10_000, start - HOUR);
    await trades(db, a, 'spot', [300, -100], start + HOUR);
    await trades(db, a, 'pm', [50], start + 2 * HOUR);
    await trades(db, b, 'futures', [500], start + 3 * HOUR);
    await trade(db, c, 'spot', null, start + 3 * HOUR);
    await trades(db, outsider, 'spot', [9999], start + HOUR);
  }, 300_000);
  afterAll(() => t?.close(), 120_000);

  it('lists featured and public competitions, never unlisted ones', async () => {
    const { status, body } = await get('/api/competitions');
    expect(status).toBe(200);
    expect(body.competitions.map((x: { slug: string }) => x.slug)).toEqual(['winter-cup', 'later']);
    expect(body.competitions[1]).toMatchObject({ status: 'upcoming', featured: false, entryCount: 0 });
    expect(body.asOf).toBe(iso(t.clock.now()));
    expect(JSON.stringify(body)).not.toMatch(/"id"|keyId|invite|userId/);
  });

  it('ranks entered agents by realized PnL inside the window, below the gate with rank null', async () => {
    const { status, body } = await get('/api/competitions/winter-cup');
    expect(status).toBe(200);
    expect(body.minDecidedTrades).toBe(1);
    expect(body.competition).toMatchObject({ slug: 'winter-cup', status: 'active', entryCount: 3 });
    expect(body.rows.map((r: { handle: string; rank: number | null }) => [r.handle, r.rank])).toEqual([
      [`a${b}-bee`, 1],
      [`a${a}-ace`, 2],
      [`a${c}-cee`, null],
    ]);
    const ace = body.rows[1];
    expect(ace).toMatchObject({ agentName: 'Ace', model: 'm1', realizedPnlMusd: 250, tradeCount: 3, decidedTradeCount: 3, winCount: 2, lossCount: 1, winRate: 0.66666667 });
    expect(ace.byVenue.pm.realizedPnlMusd).toBe(50);
    expect(ace.sparkline).toEqual([0, 250, 250]);
    expect(ace.joinedAt).toBe(iso(t.clock.now()));
    expect(body.rows[2]).toMatchObject({ tradeCount: 1, decidedTradeCount: 0, winRate: null });
    expect(JSON.stringify(body)).not.toMatch(/keyId|userId/);
  });

  it('reads unlisted competitions by slug and 404s unknown slugs', async () => {
    expect((await get('/api/competitions/secret')).status).toBe(200);
    const missing = await get('/api/competitions/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('competition_not_found');
    expect((await get(`/api/competitions/${'x'.repeat(81)}`)).status).toBe(400);
  });

  it('serves frozen final standings after the end', async () => {
    const db = t.testDb.database.db;
    t.clock.set(start + 3 * DAY + HOUR);
    // Cee is private when the board freezes (the first read after the end)
    await updateKey(db, c, { isPublic: false });
    const ended = (await get('/api/competitions/winter-cup')).body;
    expect(ended.competition.status).toBe('ended');
    expect(ended.rows.map((r: { handle: string }) => r.handle)).toEqual([`a${b}-bee`, `a${a}-ace`]);
    // A trade stamped inside the window but written after the end no longer moves the board.
    await trade(db, b, 'futures', -10_000, start + 2 * DAY);
    const again = (await get('/api/competitions/winter-cup')).body;
    expect(again.rows).toEqual(ended.rows);
    // Published again, Cee shows with the figures frozen for it (the frozen board keeps every entrant).
    await updateKey(db, c, { isPublic: true });
    const all = (await get('/api/competitions/winter-cup')).body;
    expect(all.rows.map((r: { handle: string; rank: number | null }) => [r.handle, r.rank])).toEqual([
      [`a${b}-bee`, 1],
      [`a${a}-ace`, 2],
      [`a${c}-cee`, null],
    ]);
    expect(all.rows[2]).toMatchObject({ tradeCount: 1, decidedTradeCount: 0 });
    // Unpublishing still removes an agent from the frozen board; the ranks close up (a gap would
    // show where a hidden entrant placed) and the entry count follows.
    await updateKey(db, b, { isPublic: false });
    const hidden = (await get('/api/competitions/winter-cup')).body;
    expect(hidden.rows.map((r: { handle: string; rank: number | null }) => [r.handle, r.rank])).toEqual([
      [`a${a}-ace`, 1],
      [`a${c}-cee`, null],
    ]);
    expect(hidden.competition.entryCount).toBe(2);
    expect((await get('/api/competitions')).body.competitions.find((x: { slug: string }) => x.slug === 'winter-cup').entryCount).toBe(2);
    await updateKey(db, b, { isPublic: true });
    expect((await get('/api/competitions/winter-cup')).body.rows).toEqual(all.rows);
    // A renamed agent keeps its frozen figures under its current handle (the old one links nowhere).
    await updateKey(db, a, { agentName: 'Ace Two' });
    const renamed = (await get('/api/competitions/winter-cup')).body.rows[1];
    expect(renamed).toEqual({ ...all.rows[1], handle: `a${a}-ace-two`, agentName: 'Ace Two' });
    await updateKey(db, a, { agentName: 'Ace' });
  });

  it('guards the owner actions: admin token, validation, duplicates, unknown keys, ended competitions', async () => {
    const noToken = await t.app.inject({ method: 'POST', url: '/api/admin/competitions', payload: {} });
    expect(noToken.statusCode).toBe(401);
    const dup = await admin('POST', '/api/admin/competitions', { slug: 'later', title: 'x', startsAt: iso(start), endsAt: iso(start + 20 * DAY) });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('competition_slug_taken');
    const backwards = await admin('POST', '/api/admin/competitions', { slug: 'bw', title: 'x', startsAt: iso(start + DAY), endsAt: iso(start) });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().field).toBe('body.endsAt');
    // a window over before anyone can enter, or longer than a year of daily figures, is refused
    const now = t.clock.now();
    for (const [startsAt, endsAt] of [
      [now - 2 * DAY, now - DAY],
      [now - DAY, now + 366 * DAY],
      [Date.parse('0001-01-02T00:00:00Z'), now + DAY],
    ]) {
      const res = await admin('POST', '/api/admin/competitions', { slug: 'bad-window', title: 'x', startsAt: iso(startsAt!), endsAt: iso(endsAt!) });
      expect([res.statusCode, res.json().field]).toEqual([400, 'body.endsAt']);
    }
    expect((await admin('POST', '/api/admin/competitions', { slug: 'year', title: 'x', startsAt: iso(now - DAY), endsAt: iso(now + 365 * DAY) })).statusCode).toBe(201);
    const badSlug = await admin('POST', '/api/admin/competitions', { slug: 'Bad Slug', title: 'x', startsAt: iso(start), endsAt: iso(start + DAY) });
    expect(badSlug.statusCode).toBe(400);
    const blank = await admin('POST', '/api/admin/competitions', { slug: 'blank', title: '   ', startsAt: iso(now), endsAt: iso(now + DAY) });
    expect([blank.statusCode, blank.json().field]).toEqual([400, 'body.title']); // was 201 with name "   "
    expect((await admin('POST', '/api/admin/competitions/later/entries', { keyId: 99999 })).statusCode).toBe(404);
    expect((await admin('POST', '/api/admin/competitions/nope/entries', { keyId: a })).statusCode).toBe(404);
    const late = await admin('POST', '/api/admin/competitions/winter-cup/entries', { keyId: outsider });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toBe('competition_ended');
    const listed = (await admin('GET', '/api/admin/competitions')).json();
    expect(listed.competitions.map((x: { slug: string }) => x.slug)).toEqual(['winter-cup', 'secret', 'later', 'year']);
    // the operator sees every entrant; the public count leaves the private and revoked ones out
    await updateKey(t.testDb.database.db, c, { isPublic: false });
    const cup = (await admin('GET', '/api/admin/competitions')).json().competitions[0];
    expect([cup.entrantCount, cup.entryCount]).toEqual([3, 2]);
    await updateKey(t.testDb.database.db, c, { isPublic: true });
  });

  it('freezes the final standings only once trades stamped before the end have had time to commit (the first read after the end froze without them)', async () => {
    const db = t.testDb.database.db;
    const finisher = await agentKey(db, 'Finisher');
    const now = t.clock.now();
    const endsAt = now + 60_000;
    expect((await admin('POST', '/api/admin/competitions', { slug: 'photo-finish', title: 'Photo finish', startsAt: iso(now - HOUR), endsAt: iso(endsAt) })).statusCode).toBe(201);
    expect((await admin('POST', '/api/admin/competitions/photo-finish/entries', { keyId: finisher })).statusCode).toBe(200);
    const pnl = async () => ((await get('/api/competitions/photo-finish')).body.rows[0] as { realizedPnlMusd: number }).realizedPnlMusd;
    await trade(db, finisher, 'spot', 100, now);
    t.clock.set(endsAt + 1_000);
    expect(await pnl()).toBe(100);
    await trade(db, finisher, 'spot', 50, endsAt - 1); // stamped inside the window, committed after the end
    t.clock.set(endsAt + BOARD_SETTLE_MS);
    expect(await pnl()).toBe(150); // frozen now
    await trade(db, finisher, 'spot', 25, endsAt - 1);
    t.clock.set(endsAt + HOUR);
    expect(await pnl()).toBe(150);
  });
});

describe('Arena public reads are keyless with a per-IP budget', { timeout: 120_000 }, () => {
  it('answers 429 with Retry-After once the per-IP budget is spent', async () => {
    const t = await createTestApp({ config: { publicRpm: 2 } });
    try {
      const paths = ['/api/arena', '/api/competitions', '/api/arena/decisions'];
      const statuses: number[] = [];
      for (const url of paths) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: '10.0.0.9' });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          expect(res.json().error).toBe('rate_limited');
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        } else expect(res.headers['ratelimit-limit']).toBe('2');
      }
      expect(statuses).toEqual([200, 200, 429]);
      // Another address has its own budget; no key is ever needed.
      expect((await t.app.inject({ method: 'GET', url: '/api/arena', remoteAddress: '10.0.0.10' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
