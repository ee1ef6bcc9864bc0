import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseCache, cachedResponder } from '../../src/http/routes/pm/common.js';

/** A route answered through the public response cache, with a build that waits until released. */
function cachedRoute(ttlMs: number) {
  let now = 1_000_000;
  let builds = 0;
  let failNext = false;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const hold = () => {
    gate = new Promise<void>((resolve) => (release = resolve));
  };
  const cached = cachedResponder(new ResponseCache(), () => now);
  const app = Fastify();
  app.get('/thing', (_request, reply) =>
    cached(reply, 'thing', ttlMs, async () => {
      builds += 1;
      const n = builds;
      await gate;
      if (failNext) {
        failNext = false;
        throw new Error('source down');
      }
      return { body: { build: n }, sources: ['manifold'] };
    }),
  );
  return {
    app,
    builds: () => builds,
    hold,
    release: () => release(),
    failNextBuild: () => (failNext = true),
    advance: (ms: number) => (now += ms),
  };
}

let open: FastifyInstance | null = null;
afterEach(async () => {
  await open?.close();
  open = null;
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('public response cache', () => {
  it('builds a missing entry once for all the requests that miss it at the same time', async () => {
    const route = cachedRoute(5_000);
    open = route.app;
    route.hold();
    const answers = Array.from({ length: 20 }, () => route.app.inject({ method: 'GET', url: '/thing' }));
    await settle();
    route.release();
    const done = await Promise.all(answers);
    expect(route.builds()).toBe(1);
    for (const res of done) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ build: 1 });
      expect(res.headers.etag).toBe(done[0]!.headers.etag);
    }
  });

  it('serves the entry until it expires, then builds it again', async () => {
    const route = cachedRoute(5_000);
    open = route.app;
    expect((await route.app.inject({ method: 'GET', url: '/thing' })).json()).toEqual({ build: 1 });
    route.advance(4_999);
    expect((await route.app.inject({ method: 'GET', url: '/thing' })).json()).toEqual({ build: 1 });
    route.advance(1);
    expect((await route.app.inject({ method: 'GET', url: '/thing' })).json()).toEqual({ build: 2 });
    expect(route.builds()).toBe(2);
  });

  it('answers every waiter of a failed build with the error and builds again on the next request', async () => {
    const route = cachedRoute(5_000);
    open = route.app;
    route.hold();
    route.failNextBuild();
    const answers = Array.from({ length: 5 }, () => route.app.inject({ method: 'GET', url: '/thing' }));
    await settle();
    route.release();
    for (const res of await Promise.all(answers)) expect(res.statusCode).toBe(500);
    expect(route.builds()).toBe(1);
    const next = await route.app.inject({ method: 'GET', url: '/thing' });
    expect(next.statusCode).toBe(200);
    expect(next.json()).toEqual({ build: 2 });
  });
});
