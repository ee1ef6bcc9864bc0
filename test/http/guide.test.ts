import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('guides under /docs/guide', () => {
  it('lists every docs/ page, linked from the API docs page', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/docs/guide' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toContain('text/html');
    for (const page of ['configuration', 'deployment', 'metrics', 'execution']) expect(index.body).toContain(`href="/docs/guide/${page}"`);
    const openapi = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { info: { description: string } };
    expect(openapi.info.description).toContain('(/docs/guide)');
  });

  it('serves a page as plain text, with or without .md', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/guide/configuration' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/plain');
    expect(page.body).toContain('DATABASE_URL');
    expect((await t.app.inject({ method: 'GET', url: '/docs/guide/metrics.md' })).body).toContain('paper_arena_job_leader');
  });

  it('answers 404 with the error envelope for unknown or path-like names', async () => {
    for (const url of ['/docs/guide/nope', '/docs/guide/..%2Fpackage', '/docs/guide/CONFIGURATION', '/docs/guide/.env']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error, url).toMatch(/^(guide_not_found|not_found)$/);
    }
  });
});
