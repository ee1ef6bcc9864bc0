import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisRateLimitStore } from '../../src/ratelimit/redis-store.js';
import { ManualClock } from '../../src/util/clock.js';
import { createTestApp, bearer, type TestApp, type TestAppOptions } from '../support/app.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { REDIS_URL, deleteRedisPrefix, uniqueRedisPrefix } from '../support/redis.js';

const MINUTE_MS = 60_000;
const TRADE_URL = '/api/agent/test/trade-write';
const SPOT_WRITE_URL = '/api/agent/test/spot-write';
const PUBLIC_URL = '/api/test/public-ping';

// One database for the whole file (a fresh one costs seconds); every app below mints its own keys.
let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await freshDatabase();
});
afterAll(async () => testDb?.drop());
const newApp = (options: TestAppOptions = {}) => createTestApp({ testDb, ...options });

/** Test-only routes: a keyed trade write and a keyless public route with a per-IP budget. */
function registerTestRoutes(app: FastifyInstance): void {
  app.post(TRADE_URL, { config: { scope: 'read', tradeWrite: true, ledger: { eventType: 'write' } } }, async () => ({ ok: true }));
  app.post(SPOT_WRITE_URL, { config: { scope: 'trade:spot', tradeWrite: true, ledger: { eventType: 'write' } } }, async () => ({ ok: true }));
  app.get(PUBLIC_URL, { config: { publicRate: true } }, async () => ({ ok: true }));
}

const me = (t: TestApp, key: string) => t.app.inject({ method: 'GET', url: '/api/agent/me', headers: bearer(key) });
const tradeWrite = (t: TestApp, key: string) => t.app.inject({ method: 'POST', url: TRADE_URL, headers: bearer(key), payload: {} });
const publicPing = (t: TestApp, ip: string) => t.app.inject({ method: 'GET', url: PUBLIC_URL, remoteAddress: ip });

/** Seconds until the current fixed one-minute window of the manual clock ends. */
const secondsToWindowEnd = (t: TestApp) => Math.ceil((MINUTE_MS - (t.clock.now() % MINUTE_MS)) / 1000);

function expectAdmitted(res: LightMyRequestResponse, limit: number, remaining: number): void {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe(String(remaining));
}

function expectLimited(res: LightMyRequestResponse, limit: number, resetSeconds: number): void {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json()).toMatchObject({ error: 'rate_limited', retryAfterSeconds: resetSeconds });
  expect(res.headers['retry-after']).toBe(String(resetSeconds));
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-reset']).toBe(String(resetSeconds));
}

/** A TCP relay to Redis that the test can cut and restore (Redis going away), or hold (Redis hanging: paused, a partition). */
async function startTcpProxy(target: URL): Promise<{ port: number; stop(): Promise<void>; restart(): Promise<void>; hold(): void; release(): void }> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  // while held, bytes wait here in order, as in the kernel buffers of a paused Redis
  let holding = false;
  const held: (() => void)[] = [];
  const relay = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (holding) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('error', () => undefined);
          sock.on('close', () => {
            sockets.delete(sock);
            client.destroy();
            upstream.destroy();
          });
        }
        relay(client, upstream);
        relay(upstream, client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    async stop() {
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    restart: listen,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const write of held.splice(0)) write();
    },
  };
}

/** Fires `count` requests at once; returns the responses in order. */
const burst = (count: number, call: (i: number) => Promise<LightMyRequestResponse>) =>
  Promise.all(Array.from({ length: count }, (_, i) => call(i)));

describe('per-key request budget (default 120/min)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await newApp();
  });
  afterAll(async () => t.close());

  it('admits exactly 120 of 250 parallel requests on one key and answers the other 130 with 429', async () => {
    const { key } = await t.newKey(['read']);
    const responses = await burst(250, () => me(t, key));
    const admitted = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(admitted).toHaveLength(120);
    expect(limited).toHaveLength(130);
    // Every admitted call saw its own count: the remaining values are exactly 119..0, once each.
    const remaining = admitted.map((r) => Number(r.headers['ratelimit-remaining'])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => i));
    for (const r of admitted) expect(r.headers['ratelimit-limit']).toBe('120');
    const reset = secondsToWindowEnd(t);
    for (const r of limited) expectLimited(r, 120, reset);
  });

  it('leaves another key untouched', async () => {
    const { key: busy } = await t.newKey(['read']);
    await burst(125, () => me(t, busy));
    expect((await me(t, busy)).statusCode).toBe(429);
    const { key: other } = await t.newKey(['read']);
    expectAdmitted(await me(t, other), 120, 119);
  });
});

describe('configured budgets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await newApp({ config: { agentRpm: 5, tradeWpm: 3, publicRpm: 4 }, extraRoutes: registerTestRoutes });
  });
  afterAll(async () => t.close());

  it('honours agentRpm and resets when the one-minute window passes', async () => {
    const { key } = await t.newKey(['read']);
    for (let i = 0; i < 5; i += 1) expectAdmitted(await me(t, key), 5, 4 - i);
    const reset = secondsToWindowEnd(t);
    expectLimited(await me(t, key), 5, reset);

    // One millisecond before the window ends the budget is still spent…
    t.clock.advance(reset * 1000 - 1);
    expectLimited(await me(t, key), 5, 1);
    // …and the next window starts afresh.
    t.clock.advance(1);
    expectAdmitted(await me(t, key), 5, 4);

    // A full minute later, again.
    for (let i = 0; i < 4; i += 1) await me(t, key);
    expect((await me(t, key)).statusCode).toBe(429);
    t.clock.advance(MINUTE_MS);
    expectAdmitted(await me(t, key), 5, 4);
  });

  it('counts budgets on the budget clock: a service clock on tape time (replay) does not reset them', async () => {
    const budgetClock = new ManualClock(Date.UTC(2026, 10, 27, 9, 0, 10));
    const replay = await newApp({ config: { agentRpm: 3 }, budgetClock });
    try {
      const { key } = await replay.newKey(['read']);
      for (let i = 0; i < 3; i += 1) expectAdmitted(await me(replay, key), 3, 2 - i);
      expect((await me(replay, key)).statusCode).toBe(429);
      replay.clock.advance(10 * MINUTE_MS); // ten minutes of tape pass in a few real seconds
      const refused = await me(replay, key);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('50');
      budgetClock.advance(50_000);
      expectAdmitted(await me(replay, key), 3, 2);
    } finally {
      await replay.close();
    }
  });

  it('caps trade writes at tradeWpm while reads go on, and trade writes count toward the baseline', async () => {
    const { key } = await t.newKey(['read']);
    for (let i = 0; i < 3; i += 1) expectAdmitted(await tradeWrite(t, key), 3, 2 - i);
    // The 4th trade write is refused by the trade-write budget (its headers say 3, not 5).
    expectLimited(await tradeWrite(t, key), 3, secondsToWindowEnd(t));

    // Reads still work; the 4 trade writes (even the refused one) used 4 of the 5 baseline units.
    expectAdmitted(await me(t, key), 5, 0);
    expectLimited(await me(t, key), 5, secondsToWindowEnd(t));
  });

  it('tells a key without the scope so on every try: refused writes spend the request budget, not the trade-write one', async () => {
    const { key } = await t.newKey(['read']);
    for (let i = 0; i < 4; i += 1) {
      const res = await t.app.inject({ method: 'POST', url: SPOT_WRITE_URL, headers: bearer(key), payload: {} });
      // Past tradeWpm (3) still 403 insufficient_scope, not a 429 that would send it waiting.
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'insufficient_scope' });
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(4 - i));
    }
    expect((await me(t, key)).statusCode).toBe(200);
    expectLimited(await me(t, key), 5, secondsToWindowEnd(t));
  });

  it('gives a fresh key its own trade-write budget', async () => {
    const { key: first } = await t.newKey(['read']);
    for (let i = 0; i < 4; i += 1) await tradeWrite(t, first);
    const { key: second } = await t.newKey(['read']);
    expectAdmitted(await tradeWrite(t, second), 3, 2);
  });

  it('limits keyless public routes per IP', async () => {
    for (let i = 0; i < 4; i += 1) expectAdmitted(await publicPing(t, '203.0.113.7'), 4, 3 - i);
    expectLimited(await publicPing(t, '203.0.113.7'), 4, secondsToWindowEnd(t));
    expectAdmitted(await publicPing(t, '203.0.113.8'), 4, 3);
  });
});

describe('per-IP budgets behind a load balancer (TRUST_PROXY)', () => {
  const viaProxy = (t: TestApp, forwardedFor: string) =>
    t.app.inject({ method: 'GET', url: PUBLIC_URL, remoteAddress: '10.0.0.5', headers: { 'x-forwarded-for': forwardedFor } });
  const apps: TestApp[] = [];
  afterAll(async () => Promise.all(apps.map((t) => t.close())));

  it('with the proxies named, a client cannot pick its own IP by prefixing X-Forwarded-For', async () => {
    const t = await newApp({ config: { publicRpm: 2, trustProxy: '10.0.0.0/8' }, extraRoutes: registerTestRoutes });
    apps.push(t);
    // the load balancer (10.0.0.5) appended the real client, 198.51.100.9; the rest is the client's own text
    for (let i = 0; i < 2; i += 1) expectAdmitted(await viaProxy(t, `203.0.113.${i}, 198.51.100.9`), 2, 1 - i);
    expectLimited(await viaProxy(t, '203.0.113.99, 198.51.100.9'), 2, secondsToWindowEnd(t));
    expectAdmitted(await viaProxy(t, '198.51.100.10'), 2, 1);
  });

  it('with TRUST_PROXY=true every hop is trusted: the leftmost entry counts (documented as spoofable)', async () => {
    const t = await newApp({ config: { publicRpm: 2, trustProxy: true }, extraRoutes: registerTestRoutes });
    apps.push(t);
    for (let i = 0; i < 3; i += 1) expectAdmitted(await viaProxy(t, `203.0.113.${i}, 198.51.100.9`), 2, 1);
  });
});

describe('rate-limit store down (Redis unreachable)', () => {
  let t: TestApp;
  let store: RedisRateLimitStore;
  let problems = 0;
  beforeAll(async () => {
    // Nothing listens on port 1: every counter call fails.
    store = new RedisRateLimitStore('redis://127.0.0.1:1', () => (problems += 1), uniqueRedisPrefix('rl-down'));
    t = await newApp({ rateLimits: store, extraRoutes: registerTestRoutes });
  });
  afterAll(async () => {
    await t.close();
    await store.close();
  });

  it('counts in the process instead (headers and budgets go on) and answers promptly, reporting once', { timeout: 5_000 }, async () => {
    const { key } = await t.newKey(['read']);
    const started = Date.now();
    const first = await me(t, key);
    expectAdmitted(first, 120, 119);
    expect(first.json().userId).toBe('tester');
    const rest = await burst(10, (i) => (i % 3 === 0 ? me(t, key) : i % 3 === 1 ? tradeWrite(t, key) : publicPing(t, '198.51.100.1')));
    for (const r of rest) {
      expect(r.statusCode, r.body).toBe(200);
      expect(r.headers['ratelimit-limit']).toBeDefined();
    }
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(problems).toBe(1); // one report per 30 s, not a line per request
  });

  it('does not add a reconnect wait to every request while Redis stays down', { timeout: 5_000 }, async () => {
    const { key } = await t.newKey(['read']);
    await me(t, key);
    // Queued behind ioredis's growing reconnect back-off, each call used to wait up to its
    // 1 s command timeout; 30 sequential calls then took many seconds.
    const started = Date.now();
    for (let i = 0; i < 30; i += 1) expect((await me(t, key)).statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

const BURST_COMMAND_TIMEOUT_MS = 10_000;

describe.skipIf(!REDIS_URL)('shared budget across two API instances (Redis)', () => {
  const prefix = uniqueRedisPrefix('rl-shared');
  let a: TestApp;
  let b: TestApp;
  let storeA: RedisRateLimitStore;
  let storeB: RedisRateLimitStore;
  beforeAll(async () => {
    // 250 requests injected at once saturate this test process's event loop for over a second;
    // timers run before socket reads, so the default 1 s timeout would fire on answers already there.
    storeA = new RedisRateLimitStore(REDIS_URL!, undefined, prefix, BURST_COMMAND_TIMEOUT_MS);
    storeB = new RedisRateLimitStore(REDIS_URL!, undefined, prefix, BURST_COMMAND_TIMEOUT_MS);
    a = await newApp({ rateLimits: storeA });
    // Same database and clock, its own app and its own Redis connection: a second process.
    b = await createTestApp({ rateLimits: storeB, testDb: a.testDb, clock: a.clock });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await storeA?.close();
    await storeB?.close();
    await deleteRedisPrefix(REDIS_URL!, prefix);
  });

  it('admits exactly 120 of 250 parallel requests split across both instances', async () => {
    const { key } = await a.newKey(['read']);
    const responses = await burst(250, (i) => me(i % 2 === 0 ? a : b, key));
    const admitted = responses.filter((r) => r.statusCode === 200);
    expect(admitted).toHaveLength(120);
    expect(responses.filter((r) => r.statusCode === 429)).toHaveLength(130);
    const remaining = admitted.map((r) => Number(r.headers['ratelimit-remaining'])).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => i));
    // Both instances now refuse the key; another key is fine on both.
    expectLimited(await me(a, key), 120, secondsToWindowEnd(a));
    expectLimited(await me(b, key), 120, secondsToWindowEnd(a));
    const { key: other } = await a.newKey(['read']);
    expectAdmitted(await me(b, other), 120, 119);
    expectAdmitted(await me(a, other), 120, 118);
  });

  it('counts in the process while Redis is unreachable and in Redis again once it is back', { timeout: 30_000 }, async () => {
    const proxy = await startTcpProxy(new URL(REDIS_URL!));
    const store = new RedisRateLimitStore(`redis://127.0.0.1:${proxy.port}`, undefined, prefix);
    const c = await createTestApp({ rateLimits: store, testDb: a.testDb, clock: a.clock, config: { agentRpm: 5 } });
    try {
      const { key } = await c.newKey(['read']);
      expectAdmitted(await me(c, key), 5, 4);
      expectAdmitted(await me(c, key), 5, 3); // 2 counted in Redis

      await proxy.stop();
      const started = Date.now();
      // counted in this process from 0: the budget still holds, per process
      for (let remaining = 4; remaining >= 0; remaining -= 1) expectAdmitted(await me(c, key), 5, remaining);
      expectLimited(await me(c, key), 5, secondsToWindowEnd(c));
      expect(Date.now() - started).toBeLessThan(2_000);

      await proxy.restart();
      // ioredis reconnects on its own; the local count is spent, so a 200 is Redis's count going on
      // from where it was (3 of 5).
      await vi.waitFor(async () => expect((await me(c, key)).statusCode).toBe(200), { timeout: 15_000, interval: 50 });
      expectAdmitted(await me(c, key), 5, 1);
    } finally {
      await c.close();
      await store.close();
      await proxy.stop();
    }
  });

  it('counts in the process while Redis hangs (connected, not answering) instead of waiting out the timeout on every call; in Redis again once it answers', { timeout: 30_000 }, async () => {
    const proxy = await startTcpProxy(new URL(REDIS_URL!));
    const store = new RedisRateLimitStore(`redis://127.0.0.1:${proxy.port}`, undefined, prefix, 300);
    const c = await createTestApp({ rateLimits: store, testDb: a.testDb, clock: a.clock, config: { agentRpm: 5 } });
    try {
      const { key } = await c.newKey(['read']);
      expectAdmitted(await me(c, key), 5, 4); // counted in Redis: 1

      proxy.hold();
      const started = Date.now();
      // the first call waits out the 300 ms timeout, the others count in memory at once (each waited 300 ms)
      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) statuses.push((await me(c, key)).statusCode);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]); // 5 counted in this process

      proxy.release(); // Redis answers again: the held call counts there too (2), then the probe's PING
      await vi.waitFor(async () => expect((await me(c, key)).statusCode).toBe(200), { timeout: 15_000, interval: 100 });
      expect(Number((await me(c, key)).headers['ratelimit-remaining'])).toBeLessThan(2);
    } finally {
      await c.close();
      await store.close();
      await proxy.stop();
    }
  });

  it('starts a new shared window when the minute passes', async () => {
    const { key } = await a.newKey(['read']);
    await burst(121, (i) => me(i % 2 === 0 ? a : b, key));
    expect((await me(b, key)).statusCode).toBe(429);
    a.clock.advance(MINUTE_MS);
    expectAdmitted(await me(b, key), 120, 119);
    expectAdmitted(await me(a, key), 120, 118);
  });
});
if (!REDIS_URL) console.log('[rate-limits] REDIS_URL is not set: the shared-budget tests across two instances are skipped');
