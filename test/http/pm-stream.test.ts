import { EventEmitter } from 'node:events';
import http, { type ServerResponse } from 'node:http';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forcePmResolution } from '../../src/pm/api.js';
import { pmStreamHub } from '../../src/http/routes/pm/stream.js';
import { PmStreamHub } from '../../src/pm/stream-hub.js';
import { queryRows } from '../../src/storage/db.js';
import { publishPmStreamEvent } from '../../src/storage/pm-repo.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import { openStream } from '../support/sse.js';

let t: PmTestApp;
let port: number;

const open = (headers: Record<string, string> = {}) => openStream(port, '/api/prediction-markets/stream', headers);

/** The frames of one SSE event name, parsed. */
function frames(text: string, event: string): { id: number; data: any }[] {
  return text
    .split('\n\n')
    .filter((f) => f.includes(`event: ${event}\n`))
    .map((f) => ({ id: Number(/^id: (\d+)$/m.exec(f)![1]), data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) }));
}

beforeAll(async () => {
  t = await createPmApp({ config: { publicRpm: 100_000 } });
  pmStreamHub(t.ctx)!.configure({ heartbeatMs: 40, maxPerIp: 2 });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('GET /api/prediction-markets/stream', () => {
  it('streams a retry hint, heartbeats, deltas, whales and resolutions; resumes from Last-Event-ID; caps streams per IP', async () => {
    const a = await open();
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(a.text().startsWith('retry: 5000\n')).toBe(true);
    await a.waitFor(/: hb \d{4}-\d\d-\d\dT/);

    t.clock.advance(3 * 3_600_000);
    await t.ingest.run(t.clock.now());
    await a.waitFor(/event: deltas\n/);
    await a.waitFor(/event: whale\n/);
    const deltas = frames(a.text(), 'deltas')[0]!;
    expect(deltas.data.deltas.length).toBeGreaterThan(0);
    expect(deltas.data.deltas[0]).toMatchObject({ source: expect.any(String), slug: expect.any(String), title: expect.any(String), priceChange24h: expect.any(Number), volume24h: expect.any(Number) });
    const whale = frames(a.text(), 'whale')[0]!;
    expect(whale.data.trades[0]).toMatchObject({ marketQuestion: expect.any(String), usdValue: expect.any(Number), event: { source: expect.any(String) } });

    const market = deltas.data.deltas[0];
    await forcePmResolution(t.ctx.database, t.ctx.clock, { source: market.source, slug: market.slug, winnerExternalMarketId: null });
    await a.waitFor(new RegExp(`"slug":"${market.slug}","title"[^\n]*"resolutionState":"voided"`));
    const res = frames(a.text(), 'resolution').find((f) => f.data.resolutions.some((r: any) => r.slug === market.slug))!;
    expect(res.data.resolutions[0]).toMatchObject({ source: market.source, slug: market.slug, resolutionState: 'voided' });

    // Event ids increase; a client resuming after the deltas event gets exactly what followed.
    const ids = a.text().split('\n').filter((l) => l.startsWith('id: ')).map((l) => Number(l.slice(4)));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    // One ingest may publish its deltas in more than one event (the hub polls while it writes): resume after the last.
    const lastDeltas = frames(a.text(), 'deltas').at(-1)!;
    const b = await open({ 'Last-Event-ID': String(lastDeltas.id) });
    await b.waitFor(/event: resolution\n/);
    expect(frames(b.text(), 'deltas')).toHaveLength(0);
    expect(frames(b.text(), 'resolution').map((f) => f.id)).toEqual([res.id]);

    // Two streams from this IP are open: the third is refused.
    const c = await open();
    expect(c.status).toBe(503);
    await c.waitFor(/stream_at_capacity/);
    c.close();
    a.close();
    b.close();
  }, 60_000);

  it('sends a resync event when a Last-Event-ID resume cannot be answered whole (left the buffer, or unknown)', async () => {
    const hub = pmStreamHub(t.ctx)!;
    /** The stream's text up to its first heartbeat after connecting: what a resume replays. */
    const opening = async (lastEventId: number) => {
      const s = await open({ 'Last-Event-ID': String(lastEventId) });
      await s.waitFor(/: connected [^\n]+\n\n[\s\S]*: hb /);
      s.close();
      return s.text();
    };
    const resyncOf = (text: string) => {
      const frame = text.split('\n\n').find((f) => f.startsWith('event: resync\n'));
      return frame ? { hasId: /^id: /m.test(frame), data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) } : null;
    };
    t.clock.advance(3 * 3_600_000);
    await t.ingest.run(t.clock.now());
    await hub.pull();
    const before = hub.newestId;
    expect(before).toBeGreaterThan(0);
    expect(resyncOf(await opening(before))).toBeNull();
    expect(resyncOf(await opening(before + 1_000))).toEqual({
      hasId: false,
      data: { at: expect.any(String), reason: 'unknown_event_id', lastEventId: before + 1_000, oldestReplayedId: null },
    });

    // A buffer of 1: the next ingest's events push `before` and all but the newest out.
    hub.configure({ bufferSize: 1 });
    try {
      t.clock.advance(3 * 3_600_000);
      await t.ingest.run(t.clock.now());
      await hub.pull();
      const newest = hub.newestId;
      expect(newest).toBeGreaterThan(before + 1);
      const text = await opening(before);
      expect(resyncOf(text)).toEqual({ hasId: false, data: { at: expect.any(String), reason: 'events_dropped', lastEventId: before, oldestReplayedId: newest } });
      // then what the buffer holds, after the resync event
      expect(text.indexOf(`id: ${newest}\n`)).toBeGreaterThan(text.indexOf('event: resync'));
      expect(resyncOf(await opening(newest - 1))).toBeNull();
    } finally {
      hub.configure({ bufferSize: 500 });
    }
  }, 60_000);

  it('keeps the per-IP cap when resumes wait on a read first (concurrent ones with a new Last-Event-ID all got in)', async () => {
    const hub = pmStreamHub(t.ctx)!;
    const pull = hub.pull.bind(hub);
    hub.pull = () => new Promise<void>((resolve) => setTimeout(resolve, 50)).then(pull);
    try {
      const streams = await Promise.all(Array.from({ length: 5 }, () => open({ 'Last-Event-ID': String(hub.newestId + 1_000) })));
      expect(streams.map((s) => s.status).sort()).toEqual([200, 200, 503, 503, 503]);
      for (const s of streams) s.close();
    } finally {
      hub.pull = pull;
    }
  }, 30_000);

  it('a hub started on stored events says a resume from before the oldest one cannot be answered whole (pruned after a day, or past the buffer)', async () => {
    const db = t.ctx.database.db;
    for (let n = 0; n < 3; n += 1) await publishPmStreamEvent(db, 'test', { n }, t.clock.now());
    // the retention job pruned all but the newest
    await db.execute(sql`delete from pm_stream_events where id < (select max(id) from pm_stream_events)`);
    const [kept] = await queryRows<{ id: number }>(db, sql`select max(id)::int as id from pm_stream_events`);
    const newest = kept!.id;
    expect(newest).toBeGreaterThan(2);
    const fresh = new PmStreamHub(t.ctx.database, t.clock, { heartbeatMs: 60_000 });
    await fresh.start(); // holds the one stored event (fewer than its 500)
    let written = '';
    const res = Object.assign(new EventEmitter(), { writeHead() {}, write: (text: string) => (written += text), end() {}, destroy() {}, writableLength: 0 });
    try {
      fresh.attach('10.0.0.9', res as unknown as ServerResponse, newest - 2, {});
      expect(written).toMatch(/event: resync\ndata: \{[^\n]*"reason":"events_dropped"/);
      written = '';
      fresh.attach('10.0.0.9', res as unknown as ServerResponse, newest - 1, {});
      expect(written).not.toContain('resync');
      expect(written).toContain(`id: ${newest}\n`);
    } finally {
      res.emit('close');
      await fresh.stop();
    }
  });

  it('answers HEAD with the stream headers at once, without taking a stream slot', async () => {
    for (let i = 0; i < 4; i += 1) {
      const head = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request({ method: 'HEAD', host: '127.0.0.1', port, path: '/api/prediction-markets/stream', timeout: 5_000 }, resolve);
        req.on('timeout', () => req.destroy(new Error('HEAD held open')));
        req.on('error', reject);
        req.end();
      });
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
      head.resume();
    }
    // Two HEADs past the per-IP cap of 2: a stream is still admitted.
    const s = await open();
    expect(s.status).toBe(200);
    s.close();
  }, 30_000);

  it('closes a connection that pipelines a request behind its stream (each answer stayed in memory behind the endless one)', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /api/prediction-markets/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await expect.poll(() => received, { timeout: 5_000 }).toContain('retry:');
    socket.write('GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(3));
    await closed; // the server ends the connection; the pipelined requests get nothing
    expect(received).not.toContain('"openapi"');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 30_000);
});
