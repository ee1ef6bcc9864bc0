/**
 * Every web page in a real Chromium (Debian's, driven by playwright-core) against one real
 * server: no console errors or failed requests, key content visible, charts drawn, axe-core
 * without serious or critical violations, no horizontal scroll at 390 px, screenshots, and the
 * figures (first contentful paint, JavaScript bytes) written to test-results/web/figures.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, PUBLIC_RPM, startWebServer, until, type WebServer } from './support/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (.ci/run installs the Debian chromium package; set CHROMIUM_PATH to use another)`);

const OUT = 'test-results/web';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const JS_BUDGET_GZIP = 100 * 1024;

interface Figure {
  name: string;
  page: string;
  fcpMs: number | null;
  jsBytes: number;
  jsGzipBytes: number;
}

let server: WebServer;
let browser: Browser;
let context: BrowserContext;
const figures: Figure[] = [];
const fx = {
  handle: '',
  liveHandle: '',
  liveKeyId: 0,
  decisionUuid: '',
  competition: 'web-cup',
  event: { source: '', slug: '', crossCount: 0 },
};

const api = async (path: string, init: RequestInit = {}, token = ADMIN_TOKEN) => {
  const res = await fetch(`${server.base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};
const post = (path: string, body: object, token = ADMIN_TOKEN) => api(path, { method: 'POST', body: JSON.stringify(body) }, token);
let seq = 0;

/** Data every page needs: demo rows, a live public agent with a closed trade, a decision, a competition, a multi-venue event. */
async function seed(): Promise<void> {
  await until(async () => ((await api('/api/arena')).body?.rows?.length ?? 0) >= 3, 120_000, 'three demo rows');
  const demo = (await api('/api/arena')).body.rows.find((r: { source: string }) => r.source === 'demo');
  fx.handle = demo.handle;

  let cluster: { venueCount: number; members: { source: string; slug: string; status: string }[] } | undefined;
  await until(
    async () => {
      cluster = (await api('/api/prediction-markets/canonical?limit=1')).body?.data?.[0];
      return (cluster?.venueCount ?? 0) >= 3;
    },
    120_000,
    'an event on three venues',
  );
  const open = cluster!.members.filter((m) => m.status === 'open');
  const pick = open.find((m) => m.source === 'polymarket' || m.source === 'kalshi') ?? open[0]!;
  fx.event = { source: pick.source, slug: pick.slug, crossCount: cluster!.members.length - 1 };

  const created = await post('/api/admin/keys', { userId: 'web-tester', name: 'web tester', model: 'test-model', scopes: ['read', 'trade:spot', 'trade:pm'], public: true });
  expect(created.status).toBe(201);
  fx.liveHandle = created.body.handle;
  fx.liveKeyId = created.body.keyId;
  for (const side of ['buy', 'sell']) {
    const order = await post('/api/agent/spot/order', { coinId: '1', side, orderType: 'market', quantity: 0.01, idempotencyKey: `web-${side}-${(seq += 1)}` }, created.body.key);
    expect(order.status, JSON.stringify(order.body)).toBeLessThan(300);
  }
  const decision = await post('/api/agent/pm/opportunity', { kind: 'forecast_only', source: pick.source, slug: pick.slug, side: 'yes', forecastProbability: 62, thesis: 'browser test <b>thesis</b>' }, created.body.key);
  expect(decision.status, JSON.stringify(decision.body)).toBe(201);
  fx.decisionUuid = decision.body.decisionUuid;

  const now = Date.now();
  const comp = await post('/api/admin/competitions', { slug: fx.competition, title: 'Web cup', startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 86_400_000).toISOString(), visibility: 'featured' });
  expect(comp.status).toBe(201);
  expect((await post(`/api/admin/competitions/${fx.competition}/entries`, { keyId: fx.liveKeyId })).status).toBe(200);
}

/** Saturated pixels on the chart's canvas: a series was drawn, not only the grey grid and axes. */
async function seriesPixels(page: Page, id: string): Promise<number> {
  await page.waitForSelector(`#${id} canvas`);
  return page.evaluate((chartId) => {
    const canvas = document.querySelector<HTMLCanvasElement>(`#${chartId} canvas`)!;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      const rgb = [data[i]!, data[i + 1]!, data[i + 2]!];
      if (data[i + 3]! > 200 && Math.max(...rgb) - Math.min(...rgb) > 80) n += 1;
    }
    return n;
  }, id);
}

/** axe-core (already injected) on the page as it is now: serious and critical violations only. */
async function seriousViolations(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/**
 * Opens a page and holds it to the common bar; `check` asserts its own content. Returns the
 * page for further steps (the caller closes it).
 */
async function visit(name: string, path: string, check: (page: Page) => Promise<void>): Promise<void> {
  const page = await context.newPage();
  const problems: string[] = [];
  const scripts = new Set<string>();
  let watching = true;
  page.on('console', (m) => watching && m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => watching && problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => watching && problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (!watching) return;
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    if (r.request().resourceType() === 'script') scripts.add(r.url());
  });
  try {
    const response = await page.goto(`${server.base}${path}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    await check(page);
    const fcpMs = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);

    await page.addScriptTag({ path: AXE });
    expect(await seriousViolations(page), 'axe at desktop width').toEqual([]);

    await page.screenshot({ path: `${OUT}/${name}-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(250); // charts resize after 150 ms
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'horizontal scroll at 390 px').toBeLessThanOrEqual(0);
    expect(await seriousViolations(page), 'axe at 390 px').toEqual([]);
    await page.screenshot({ path: `${OUT}/${name}-390.png`, fullPage: true });
    watching = false;
    expect(problems).toEqual([]);

    let jsBytes = 0;
    let jsGzipBytes = 0;
    for (const url of scripts) {
      const body = Buffer.from(await (await fetch(url)).arrayBuffer());
      jsBytes += body.length;
      jsGzipBytes += gzipSync(body).length;
    }
    expect(jsGzipBytes).toBeLessThanOrEqual(JS_BUDGET_GZIP);
    figures.push({ name, page: path.replace(/\?.*$/, ''), fcpMs: fcpMs === null ? null : Math.round(fcpMs), jsBytes, jsGzipBytes });
  } finally {
    watching = false;
    await page.close();
  }
}

describe.skipIf(!haveChromium)('web pages in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    server = await startWebServer();
    await seed();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    // bypassCSP lets axe-core be injected; the pages' own CSP is asserted on every response.
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  }, 480_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (figures.length > 0) {
      writeFileSync(`${OUT}/figures.json`, `${JSON.stringify(figures, null, 2)}\n`);
      console.log(figures.map((f) => `${f.name.padEnd(18)} ${f.page.slice(0, 40).padEnd(40)} FCP ${String(f.fcpMs).padStart(5)} ms  JS ${f.jsBytes} B (${f.jsGzipBytes} B gzip)`).join('\n'));
    }
  }, 60_000);

  it('home: top of the board and live prediction-market moves', async () => {
    await visit('home', '/', async (page) => {
      await expect.poll(() => page.locator('table.board tbody tr').count()).toBeGreaterThanOrEqual(3);
      expect(await page.locator('#live-moves li').count()).toBeGreaterThan(0);
      expect(await page.locator('a[href="/coins/1"]').count()).toBe(1);
      await expect.poll(() => page.textContent('#live-state'), { timeout: 10_000 }).toBe('live');
    });
  });

  it('home: live moves come back after the stream refused the page (all five slots of the address taken)', async () => {
    // take all five slots of this address (a page of an earlier test may still be giving its slot back)
    const holders: AbortController[] = [];
    for (let tries = 0; holders.length < 5 && tries < 50; tries += 1) {
      const holder = new AbortController();
      const res = await fetch(`${server.base}/api/prediction-markets/stream`, { signal: holder.signal });
      if (res.status === 200) holders.push(holder);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(holders).toHaveLength(5);
    const page = await context.newPage();
    try {
      await page.goto(`${server.base}/`);
      await expect.poll(() => page.textContent('#live-state'), { timeout: 10_000 }).toMatch(/^offline, retrying in \d+ s$/);
      for (const h of holders) h.abort();
      await expect.poll(() => page.textContent('#live-state'), { timeout: 20_000 }).toBe('live');
    } finally {
      for (const h of holders) h.abort();
      await page.close();
    }
  });

  it('arena: leaderboard rows with the demo agents, window switch, same budget and cache as /api/arena', async () => {
    const res = await fetch(`${server.base}/arena`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=30');
    expect(res.headers.get('ratelimit-limit')).toBe(String(PUBLIC_RPM));
    await visit('arena', '/arena?window=7d', async (page) => {
      const demoRows = page.locator('table.board tbody tr', { has: page.locator('.badge.demo') });
      expect(await demoRows.count()).toBeGreaterThanOrEqual(3);
      expect(await page.locator(`tr[data-handle="${fx.liveHandle}"]`).count()).toBe(1);
      expect(await page.getAttribute('.switches a[aria-current="true"]', 'href')).toContain('window=7d');
    });
    // The source switch keeps one kind of agent before paging: the caption counts that kind only.
    const board = (await api('/api/arena?window=7d&pageSize=50')).body.rows as { source: string }[];
    const demoCount = board.filter((r) => r.source === 'demo').length;
    const html = await (await fetch(`${server.base}/arena?window=7d&source=demo`)).text();
    expect(html).not.toContain(`data-handle="${fx.liveHandle}"`);
    expect(html.match(/<tr data-handle=/g)?.length).toBe(demoCount);
    expect(html).toContain(`· ${demoCount} agents ·`);
    // past the last page: says so and links the first, not "no agents yet"
    const beyond = await (await fetch(`${server.base}/arena?window=7d&source=demo&page=9`)).text();
    expect(beyond).toContain(`No agents on page 9: the board has ${demoCount}.`);
    expect(beyond).toContain('href="/arena?window=7d&amp;source=demo"');
  });

  it('dark scheme: follows the system setting', async () => {
    const dark = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark', bypassCSP: true });
    try {
      const page = await dark.newPage();
      await page.goto(`${server.base}/arena`);
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = bg.match(/\d+/g)!.map(Number);
      expect(r! + g! + b!).toBeLessThan(120);
      await page.addScriptTag({ path: AXE });
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUT}/arena-dark-desktop.png`, fullPage: true });
    } finally {
      await dark.close();
    }
  });

  it('agent profile: equity curve drawn, by-venue stats and both scorecard tracks', async () => {
    await visit('profile', `/arena/${fx.liveHandle}`, async (page) => {
      expect(await seriesPixels(page, 'equity-chart')).toBeGreaterThan(50);
      expect(await page.locator('#venues ~ div table tbody tr').count()).toBe(3);
      expect(await page.textContent('main')).toContain('Track B');
      expect(await page.locator(`a[href="/arena/decisions/${fx.decisionUuid}"]`).count()).toBe(1);
    });
  });

  it('decisions dataset: filters and download links', async () => {
    await visit('decisions', `/arena/decisions?agent=${fx.liveHandle}&includeOpportunities=true`, async (page) => {
      expect(await page.getAttribute('a[download]:text("JSON Lines")', 'href')).toContain('format=jsonl');
      expect(await page.locator(`a[href="/arena/decisions/${fx.decisionUuid}"]`).count()).toBe(1);
    });
  });

  it('decision artifact: Verify says verified, and mismatch once the artifact is tampered with', async () => {
    await visit('decision', `/arena/decisions/${fx.decisionUuid}`, async (page) => {
      expect(await page.textContent('main')).toContain('browser test <b>thesis</b>');
      await page.click('#verify-button');
      await expect.poll(() => page.textContent('#verify-result')).toMatch(/^verified/);
      await page.click('details summary');
      const artifact = JSON.parse(await page.inputValue('#artifact-json'));
      await page.fill('#artifact-json', JSON.stringify({ ...artifact, agentForecastProbability: 63 }, null, 2));
      await page.click('#verify-button');
      await expect.poll(() => page.textContent('#verify-result')).toMatch(/^mismatch/);
      // Plain http on a LAN address has no Web Crypto: the page's own SHA-256 gives the same answer.
      await page.evaluate(() => Object.defineProperty(window.crypto, 'subtle', { value: undefined }));
      await page.fill('#artifact-json', JSON.stringify(artifact));
      await page.click('#verify-button');
      await expect.poll(() => page.textContent('#verify-result')).toMatch(/^verified/);
    });
  });

  it('competitions: list and board', async () => {
    await visit('competitions', '/competitions', async (page) => {
      expect(await page.locator(`a[href="/competitions/${fx.competition}"]`).count()).toBe(1);
    });
    await visit('competition', `/competitions/${fx.competition}`, async (page) => {
      expect(await page.locator(`table.board a[href="/arena/${fx.liveHandle}"]`).count()).toBe(1);
    });
  });

  it('markets: explorer with search, venue filter and paging', async () => {
    await visit('markets', '/markets', async (page) => {
      expect(await page.locator('table.markets tbody tr').count()).toBe(25);
      expect(await page.locator('a[rel="next"]').count()).toBe(1);
    });
    await visit('markets-filtered', `/markets?source=${fx.event.source}&status=open&sort=volume24h_desc`, async (page) => {
      const venues = await page.locator('table.markets tbody tr .sub').allTextContents();
      expect(venues.length).toBeGreaterThan(0);
      expect(await page.inputValue('select[name="source"]')).toBe(fx.event.source);
    });
    // a page past the end says how many there are and links back to the last one, not to another empty page
    await visit('markets-past-end', '/markets?page=999', async (page) => {
      const counts = (await page.textContent('p.muted'))!.match(/^(\d+) markets · page 999 of (\d+)$/);
      expect(counts).not.toBeNull();
      const last = Math.ceil(Number(counts![1]) / 25);
      expect(Number(counts![2])).toBe(last);
      await page.click('a[rel="prev"]');
      await page.waitForURL(new RegExp(`/markets\\?page=${last}$`));
      expect(await page.locator('table.markets tbody tr').count()).toBeGreaterThan(0);
    });
  });

  it('event: outcomes, consensus, cross-venue rows and a drawn price chart', async () => {
    await visit('event', `/markets/${fx.event.source}/${fx.event.slug}`, async (page) => {
      expect(await page.locator('#cross-venue tbody tr').count()).toBe(fx.event.crossCount);
      expect(await seriesPixels(page, 'price-chart')).toBeGreaterThan(50);
      expect(await page.textContent('main')).toContain('Consensus');
    });
  });

  it('calibration: reliability per venue', async () => {
    await visit('calibration', '/markets/calibration', async (page) => {
      expect(await page.locator('main table tbody tr').count()).toBeGreaterThan(0);
      expect(await seriesPixels(page, 'calibration-chart')).toBeGreaterThan(20);
    });
  });

  it('coin: candles drawn for a range, context and related markets', async () => {
    await visit('coin', '/coins/1?range=1W', async (page) => {
      expect(await seriesPixels(page, 'candle-chart')).toBeGreaterThan(50);
      expect(await page.textContent('h1')).toContain('Bitcoin');
      expect(await page.getAttribute('.switches a[aria-current="true"]', 'href')).toContain('range=1W');
    });
  });

  it('API docs (Swagger UI) render under their own CSP, which forbids framing', async () => {
    const strict = await browser.newContext(); // CSP enforced: a blocked script shows as a console error
    const page = await strict.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      const response = await page.goto(`${server.base}/docs`, { waitUntil: 'load' });
      const headers = response!.headers();
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      expect(headers['x-content-type-options']).toBe('nosniff');
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('Paper Arena');
      expect(problems, problems.join('\n')).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('console: signs in, creates a key shown once, rotates it, revokes it (then 401), creates a competition, adds and removes an entry, deletes it', async () => {
    await visit('console', '/console', async (page) => {
      page.on('dialog', (d) => void d.accept());
      await page.fill('#admin-token', ADMIN_TOKEN);
      await page.click('#signin-form button[type="submit"]');
      await page.waitForSelector('#keys-table tbody tr');
      expect(page.url()).not.toContain(ADMIN_TOKEN);
      expect(await page.evaluate(() => sessionStorage.getItem('paperArenaAdminToken'))).toBe(ADMIN_TOKEN);

      await page.fill('#key-user', 'web-owner');
      await page.fill('#key-name', 'console made');
      await page.check('#key-public');
      await page.click('#create-key button[type="submit"]');
      await expect.poll(() => page.locator('#new-key-value').textContent()).toMatch(/^sk_live_/);
      const fresh = (await page.locator('#new-key-value').textContent())!;
      expect((await api('/api/agent/me', {}, fresh)).status).toBe(200);

      // Shown once: after a reload the key is nowhere on the page (the session stays signed in).
      await page.reload();
      await page.waitForSelector('#keys-table tbody tr');
      expect(await page.content()).not.toContain(fresh);
      expect(await page.isHidden('#new-key')).toBe(true);

      const row = page.locator('#keys-table tbody tr', { hasText: 'console made' });
      // Rotate: a new secret shown once for the same key; the old one is refused
      await row.getByRole('button', { name: 'Rotate' }).click();
      await expect.poll(() => page.locator('#new-key-value').textContent()).toMatch(/^sk_live_/);
      const rotated = (await page.locator('#new-key-value').textContent())!;
      expect(rotated).not.toBe(fresh);
      expect((await api('/api/agent/me', {}, fresh)).status).toBe(401);
      expect((await api('/api/agent/me', {}, rotated)).status).toBe(200);
      await page.click('#dismiss-key');

      await row.getByRole('button', { name: 'Revoke' }).click();
      await expect.poll(() => row.textContent()).toContain('revoked');
      expect((await api('/api/agent/me', {}, rotated)).status).toBe(401);

      // Publish the private demo key onto the board, then take it off again.
      const demoRow = page.locator('#keys-table tbody tr', { hasText: 'demo-agent' });
      await demoRow.getByRole('button', { name: 'Publish' }).click();
      await expect.poll(async () => (await api('/api/arena?pageSize=50')).body.rows.some((r: { agentName: string }) => r.agentName === 'demo-agent')).toBe(true);
      await demoRow.getByRole('button', { name: 'Unpublish' }).click();
      await expect.poll(async () => (await api('/api/arena?pageSize=50')).body.rows.some((r: { agentName: string }) => r.agentName === 'demo-agent')).toBe(false);

      const start = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16);
      const end = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 16);
      await page.fill('#comp-slug', 'console-cup');
      await page.fill('#comp-title', 'Console cup');
      await page.fill('#comp-start', start);
      await page.fill('#comp-end', end);
      await page.click('#create-competition button[type="submit"]');
      await expect.poll(() => page.locator('#competitions-list').textContent()).toContain('Console cup');
      await page.selectOption('#entry-slug', 'console-cup');
      await page.fill('#entry-key', String(fx.liveKeyId));
      await page.click('#add-entry button[type="submit"]');
      await expect.poll(() => page.textContent('#console-status')).toContain('entered into console-cup');
      expect((await api('/api/admin/competitions')).body.competitions.find((c: { slug: string }) => c.slug === 'console-cup').entryCount).toBe(1);
      await page.click('#remove-entry');
      await expect.poll(() => page.textContent('#console-status')).toContain('removed from console-cup');
      expect((await api('/api/admin/competitions')).body.competitions.find((c: { slug: string }) => c.slug === 'console-cup').entrantCount).toBe(0);
      // not yet started: it can be deleted (the running web-cup offers no Delete)
      expect(await page.locator('#competitions-list li', { hasText: 'Web cup' }).locator('button').count()).toBe(0);
      await page.locator('#competitions-list li', { hasText: 'Console cup' }).locator('button', { hasText: 'Delete' }).click();
      await expect.poll(() => page.textContent('#console-status')).toContain('Competition console-cup deleted');
      await expect.poll(() => page.locator('#competitions-list').textContent()).not.toContain('Console cup');
      expect((await api('/api/admin/competitions')).body.competitions.some((c: { slug: string }) => c.slug === 'console-cup')).toBe(false);
    });
  });
});
