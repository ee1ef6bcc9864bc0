/** `GET /api/prediction-markets/stream` — Server-Sent Events (contract §6, supplement 2.22). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PmStreamHub, type StreamOptions } from '../../../pm/stream-hub.js';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { TAG } from './common.js';
import { Type } from 'typebox';
import { ErrorBody } from '../../schemas.js';

const hubs = new WeakMap<AppContext, PmStreamHub>();

/** The app's stream hub (tests use it to shorten the heartbeat or lower the caps). */
export function pmStreamHub(ctx: AppContext): PmStreamHub | undefined {
  return hubs.get(ctx);
}

export function pmStreamRoutes(ctx: AppContext, options: Partial<StreamOptions> = {}): FastifyPluginAsyncTypebox {
  return async (app) => {
    const hub = new PmStreamHub(ctx.database, ctx.clock, options);
    hubs.set(ctx, hub);
    app.addHook('onReady', async () => {
      await hub.start();
    });
    app.addHook('preClose', async () => {
      await hub.stop();
    });

    app.get(
      '/api/prediction-markets/stream',
      {
        config: { publicRate: true },
        schema: {
          tags: [TAG],
          summary: 'Live stream (text/event-stream): deltas (~15 s), whale, resolution; heartbeats; Last-Event-ID resume',
          description:
            'Events: `deltas` {at, deltas[]}, `whale` {at, trades[]}, `resolution` {at, resolutions[]}. A `retry:` hint is sent on connect, `: hb <time>` comments about every 15 s. Send `Last-Event-ID` to resume from the bounded buffer; when the buffer cannot replay everything after that id (it left the buffer, or the id is unknown here) the stream first sends a `resync` event {at, reason: events_dropped|unknown_event_id, lastEventId, oldestReplayedId} — re-read the lists you follow. 503 `stream_at_capacity` when the per-IP or total stream cap is reached.',
          headers: Type.Object({
            'last-event-id': Type.Optional(Type.String({ description: 'the id of the last event received: the stream resumes after it from its bounded buffer' })),
          }),
          response: {
            200: { description: 'the event stream', content: { 'text/event-stream': { schema: Type.String() } } },
            429: ErrorBody,
            503: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        // HEAD (added by Fastify for every GET) answers the stream's headers and ends: held open, it took a stream slot.
        if (request.method === 'HEAD') return reply.type('text/event-stream').header('Cache-Control', 'no-cache').send('');
        await hub.start();
        const raw = request.headers['last-event-id'];
        const lastEventId = typeof raw === 'string' && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
        // Another process may have served an event this one has not read yet: read before judging the id unknown.
        if (lastEventId !== null && lastEventId > hub.newestId) await hub.pull();
        // after every await: streams admitted meanwhile count (checked before the read, concurrent requests all got in)
        if (!hub.admits(request.ip)) {
          throw new ApiError(503, 'stream_at_capacity', 'too many concurrent streams; retry later', {}, { 'Retry-After': '5' });
        }
        reply.hijack();
        const headers: Record<string, string> = { 'x-request-id': request.id, 'X-Data-Attribution': 'venue data: the venue named in each item; compiled by Paper Arena' };
        for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
          const v = reply.getHeader(name);
          if (v !== undefined) headers[name] = String(v);
        }
        hub.attach(request.ip, reply.raw, lastEventId, headers);
      },
    );
  };
}
