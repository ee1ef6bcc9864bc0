/** The pages over HTTP (no browser): headers, escaping of agent-chosen text, the budget's 429 page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleFor } from '../../src/domain/api-keys.js';
import { assetUrl } from '../../src/web/assets.js';
import { adminHeaders, createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const NAME = '<img src=x onerror=alert(1)>';

beforeAll(async () => {
  t = await createTestApp({ config: { publicRpm: 4 } });
}, 180_000);
afterAll(async () => {
  await t.close();
});

describe('web pages over HTTP', () => {
  it('renders the board as HTML with the JSON route\'s cache header, agent text escaped, then answers the exhausted budget with an HTML 429', async () => {
    const { keyId } = await t.newKey(['read'], { agentName: NAME, public: true });
    const res = await t.app.inject({ method: 'GET', url: '/arena' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).toContain(`href="/arena/${handleFor(keyId, NAME)}"`);
    expect(res.body).not.toContain(NAME);
    expect(res.body).toContain('&lt;img src=x onerror=alert(1)&gt;');

    const profile = await t.app.inject({ method: 'GET', url: `/arena/${handleFor(keyId, NAME)}` });
    expect(profile.statusCode).toBe(200);
    expect(profile.body).not.toContain(NAME);
    expect((await t.app.inject({ method: 'GET', url: '/arena/a999999-nobody' })).statusCode).toBe(404);

    // Four per minute: two used above, the 404 made three; the fourth passes, the fifth is refused.
    expect((await t.app.inject({ method: 'GET', url: '/competitions' })).statusCode).toBe(200);
    const refused = await t.app.inject({ method: 'GET', url: '/competitions' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.body).toContain('Too many requests');
    // Static files are outside the budget.
    const css = await t.app.inject({ method: 'GET', url: assetUrl('app.css') });
    expect(css.statusCode).toBe(200);
    expect(css.headers['cache-control']).toContain('immutable');
    // Kept for a year only under the URL of its content; a missing asset answers the error envelope.
    for (const url of ['/static/app.css', '/static/app.css?v=bogus']) {
      const unversioned = await t.app.inject({ method: 'GET', url });
      expect(unversioned.statusCode).toBe(200);
      expect(unversioned.headers['cache-control']).toBe('public, max-age=300');
    }
    const missing = await t.app.inject({ method: 'GET', url: '/static/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'not_found' });
  });

  it('shows an entrant below the competition gate unranked, as the JSON board does', async () => {
    t.clock.advance(61_000); // a fresh minute of the public budget (4 per minute here)
    const admin = adminHeaders;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/competitions',
      headers: admin,
      payload: { slug: 'gate-cup', title: 'Gate cup', startsAt: new Date(t.clock.now() - 86_400_000).toISOString(), endsAt: new Date(t.clock.now() + 86_400_000).toISOString() },
    });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const { keyId } = await t.newKey(['read'], { agentName: 'idle-entrant', public: true });
    expect((await t.app.inject({ method: 'POST', url: '/api/admin/competitions/gate-cup/entries', headers: admin, payload: { keyId } })).statusCode).toBe(200);
    const board = (await t.app.inject({ method: 'GET', url: '/api/competitions/gate-cup' })).json();
    expect(board.rows.map((r: { rank: number | null }) => r.rank)).toEqual([null]);
    const page = await t.app.inject({ method: 'GET', url: '/competitions/gate-cup' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<tr><td>—<\/td><td><a href="\/arena\/a\d+-idle-entrant">/);
  });

  it('keeps a malformed agent handle out of the dataset page\'s download links (the API would answer 400)', async () => {
    t.clock.advance(61_000);
    const res = await t.app.inject({ method: 'GET', url: '/arena/decisions?agent=a0-x' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('a0-x is not a public handle');
    expect(res.body).toContain('href="/api/arena/decisions?format=jsonl&amp;limit=250"');
    expect(res.body).not.toMatch(/api\/arena\/decisions\?[^"]*agent=a0-x/);
  });

  it('answers an unmatched address under a page section with the HTML 404 page, the API with JSON', async () => {
    t.clock.advance(61_000);
    for (const url of ['/markets/', '/arena/a7-x/', '/coins/1/extra', '/competitions/a/b?x=<script>', '/competitions/%00', '/competitions/a%00b']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.body, url).toContain('Not found');
      expect(res.body, url).not.toContain('<script>');
    }
    for (const url of ['/api/agent/nope', '/nope', '/staticx']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ error: 'not_found' });
    }
  });
});
