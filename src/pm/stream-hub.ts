/**
 * SSE fan-out for `/api/prediction-markets/stream`. Events are rows of pm_stream_events
 * written by the ingest job (on whichever process leads it); NOTIFY tells every API process
 * to read the new rows, so each process serves every event. A bounded in-memory buffer
 * answers `Last-Event-ID` resumes (a `resync` event says when it cannot answer one whole);
 * heartbeats keep idle connections open.
 */
import type { ServerResponse } from 'node:http';
import type { Database } from '../storage/db.js';
import { PM_STREAM_CHANNEL, latestPmStreamEvents, pmStreamEventsAfter } from '../storage/pm-repo.js';
import { sseFanoutLag, sseSubscribers } from '../services/metrics.js';
import type { Clock } from '../util/clock.js';

export interface StreamOptions {
  heartbeatMs: number;
  retryMs: number;
  bufferSize: number;
  maxPerIp: number;
  maxTotal: number;
}

/** Connections that carry a stream (their response never ends). */
const STREAM_SOCKETS = new WeakSet<object>();

/**
 * Whether this connection carries a stream: a request pipelined behind it is never answered —
 * Node queues its whole response behind the endless one (hundreds of MB per connection).
 */
export const carriesStream = (socket: object | null | undefined): boolean => socket != null && STREAM_SOCKETS.has(socket);

export const DEFAULT_STREAM_OPTIONS: StreamOptions = { heartbeatMs: 15_000, retryMs: 5_000, bufferSize: 500, maxPerIp: 5, maxTotal: 10_000 };
/** A client that stops reading is dropped once this much is queued for it. */
const MAX_QUEUED_BYTES = 1 << 20;

interface Client {
  ip: string;
  res: ServerResponse;
}

interface Buffered {
  id: number;
  frame: string;
}

/** Why a resume cannot replay everything after the client's `Last-Event-ID`. */
export type ResyncReason = 'events_dropped' | 'unknown_event_id';

export class PmStreamHub {
  options: StreamOptions;
  private readonly clients = new Set<Client>();
  private readonly perIp = new Map<string, number>();
  private buffer: Buffered[] = [];
  private lastId = 0;
  /** Events up to this id may have left the buffer: a resume from before it has missed some. */
  private droppedThrough = 0;
  private reading: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private started: Promise<void> | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    options: Partial<StreamOptions> = {},
  ) {
    this.options = { ...DEFAULT_STREAM_OPTIONS, ...options };
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** The newest event id this process has read. */
  get newestId(): number {
    return this.lastId;
  }

  configure(options: Partial<StreamOptions>): void {
    this.options = { ...this.options, ...options };
    if (this.heartbeat) this.restartHeartbeat();
  }

  /** Subscribes to NOTIFY and primes the resume buffer with the latest stored events. */
  start(): Promise<void> {
    this.started ??= (async () => {
      const recent = await latestPmStreamEvents(this.database.db, this.options.bufferSize);
      for (const e of recent) this.append(e.id, e.kind, e.payload);
      // Events before the oldest read may have existed (the buffer's size, or pruned after a day):
      // a resume from before it cannot be answered whole.
      if (recent.length > 0) this.droppedThrough = recent[0]!.id - 1;
      this.unlisten = await this.database.listen(
        PM_STREAM_CHANNEL,
        () => this.pull(),
        (listening) => {
          // After a reconnect, read whatever was written while we were deaf.
          if (listening) this.pull();
        },
      );
      this.restartHeartbeat();
    })();
    return this.started;
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await this.unlisten?.();
    for (const c of this.clients) c.res.end();
    sseSubscribers.dec(this.clients.size);
    this.clients.clear();
    this.perIp.clear();
  }

  /** Reads new rows after the last one seen (serialized: one reader at a time). */
  pull(): Promise<void> {
    this.reading = this.reading.then(async () => {
      for (;;) {
        const rows = await pmStreamEventsAfter(this.database.db, this.lastId, 200).catch(() => []);
        const now = this.clock.now();
        for (const e of rows) {
          sseFanoutLag.observe(Math.max(0, now - e.createdAt.getTime()) / 1000);
          this.broadcast(this.append(e.id, e.kind, e.payload));
        }
        if (rows.length < 200) break;
      }
    });
    return this.reading;
  }

  private append(id: number, kind: string, payload: unknown): Buffered {
    const data = JSON.stringify({ ...(payload as object), pushedAt: new Date(this.clock.now()).toISOString() });
    const item = { id, frame: `id: ${id}\nevent: ${kind}\ndata: ${data}\n\n` };
    this.lastId = Math.max(this.lastId, id);
    this.buffer.push(item);
    if (this.buffer.length > this.options.bufferSize) {
      const dropped = this.buffer.length - this.options.bufferSize;
      this.droppedThrough = Math.max(this.droppedThrough, this.buffer[dropped - 1]!.id);
      this.buffer = this.buffer.slice(dropped);
    }
    return item;
  }

  private broadcast(item: Buffered): void {
    for (const c of this.clients) this.write(c, item.frame);
  }

  private write(c: Client, text: string): void {
    if (c.res.writableLength > MAX_QUEUED_BYTES) {
      c.res.destroy();
      return;
    }
    c.res.write(text);
  }

  private restartHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      const line = `: hb ${new Date(this.clock.now()).toISOString()}\n\n`;
      for (const c of this.clients) this.write(c, line);
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Null when the buffer holds every event after `lastEventId`; otherwise why not: events after
   * it have left the buffer, or the id is newer than any this process has read (another
   * database, or a reset one) — the client should re-read the lists it follows.
   */
  private resyncReason(lastEventId: number): ResyncReason | null {
    if (lastEventId < this.droppedThrough) return 'events_dropped';
    if (lastEventId > this.lastId) return 'unknown_event_id';
    return null;
  }

  /** Whether one more stream from `ip` fits under the caps. */
  admits(ip: string): boolean {
    return this.clients.size < this.options.maxTotal && (this.perIp.get(ip) ?? 0) < this.options.maxPerIp;
  }

  /** Takes over an HTTP response: headers, retry hint, resume from `lastEventId`, then live events. */
  attach(ip: string, res: ServerResponse, lastEventId: number | null, headers: Record<string, string>): void {
    const client: Client = { ip, res };
    if (res.socket) STREAM_SOCKETS.add(res.socket);
    this.clients.add(client);
    sseSubscribers.inc();
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...headers,
    });
    const at = new Date(this.clock.now()).toISOString();
    let text = `retry: ${this.options.retryMs}\n: connected ${at}\n\n`;
    if (lastEventId !== null) {
      const reason = this.resyncReason(lastEventId);
      // No `id:` line: the client's last event id stays its own until a replayed event moves it.
      if (reason) text += `event: resync\ndata: ${JSON.stringify({ at, reason, lastEventId, oldestReplayedId: this.buffer.find((b) => b.id > lastEventId)?.id ?? null })}\n\n`;
      for (const item of this.buffer) if (item.id > lastEventId) text += item.frame;
    }
    res.write(text);
    const gone = () => {
      if (!this.clients.delete(client)) return;
      sseSubscribers.dec();
      const n = (this.perIp.get(ip) ?? 1) - 1;
      if (n <= 0) this.perIp.delete(ip);
      else this.perIp.set(ip, n);
    };
    res.on('close', gone);
    res.on('error', gone);
  }
}
