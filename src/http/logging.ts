import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from '../config/env.js';
import { causesOf, driverReason, isDatabaseUnavailable, sqlStateOf } from '../storage/sql-state.js';
import { isSecretName, redactApiKeys } from '../util/secrets.js';

/** No log line is longer than this (issue 12: a failing batch once logged 3.5 GB in minutes). */
export const MAX_LOG_LINE_BYTES = 8 * 1024;
const MAX_URL_CHARS = 1_024;
const MAX_MESSAGE_CHARS = 500;
const MAX_STACK_CHARS = 2_000;

/** The URL with key-like query values replaced by `[redacted]` (and any API key in it), cut to a loggable length. */
export function redactUrl(rawUrl: string): string {
  const url = redactApiKeys(rawUrl);
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (q < 0) return path.slice(0, MAX_URL_CHARS);
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // a malformed name is logged as sent (values of such pairs are still checked below)
      }
      return isSecretName(name.trim()) ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`.slice(0, MAX_URL_CHARS);
}

const cut = (text: unknown, max: number): string | undefined =>
  typeof text === 'string' ? (text.length > max ? `${text.slice(0, max)}…` : text) : undefined;

/**
 * Errors as logged. A database error keeps only its SQLSTATE and constraint: driver and Drizzle
 * messages carry the statement and its parameters (key hashes, caller strings). One that says
 * the database cannot be used (down, refusing connections, out of resources) also keeps the
 * driver's own reason — it names no statement, and without it an outage read `sqlState: 55000`.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!error || typeof error !== 'object') return { message: cut(String(error), MAX_MESSAGE_CHARS) };
  const e = error as { name?: string; constructor?: { name?: string }; message?: unknown; stack?: unknown; code?: unknown };
  const type = e.constructor?.name ?? e.name ?? 'Error';
  const sqlState = sqlStateOf(error);
  if (sqlState !== null || /Query|Database/i.test(type)) {
    let constraint: unknown;
    for (const c of causesOf(error)) constraint ??= c.constraint;
    return {
      type,
      sqlState,
      constraint: typeof constraint === 'string' ? constraint : null,
      ...(isDatabaseUnavailable(error) ? { reason: cut(driverReason(error), MAX_MESSAGE_CHARS) } : {}),
    };
  }
  return {
    type,
    message: cut(e.message, MAX_MESSAGE_CHARS),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    stack: cut(e.stack, MAX_STACK_CHARS),
  };
}

function serializeRequest(req: FastifyRequest): Record<string, unknown> {
  return { method: req.method, url: redactUrl(req.url ?? ''), host: req.host, remoteAddress: req.ip };
}

/** A log line cut to `MAX_LOG_LINE_BYTES`, still one valid JSON object with its level, time and message. */
export function capLogLine(line: string): string {
  if (Buffer.byteLength(line) <= MAX_LOG_LINE_BYTES) return line;
  let head: Record<string, unknown> = {};
  try {
    head = JSON.parse(line) as Record<string, unknown>;
  } catch {
    // not JSON: keep nothing but the fact
  }
  const kept: Record<string, unknown> = { truncated: true, originalBytes: Buffer.byteLength(line) };
  for (const k of ['level', 'time', 'pid', 'hostname', 'reqId', 'msg']) if (k in head) kept[k] = head[k];
  if (typeof kept.msg === 'string') kept.msg = cut(kept.msg, 2_000);
  const err = head.err as Record<string, unknown> | undefined;
  if (err && typeof err === 'object') kept.err = { type: err.type, message: cut(err.message, MAX_MESSAGE_CHARS) };
  return `${JSON.stringify(kept).slice(0, MAX_LOG_LINE_BYTES - 1)}\n`;
}

/** Wraps a destination so every line is capped. */
export function cappedStream(inner: DestinationStream): DestinationStream {
  const flushable = inner as DestinationStream & { flush?: (cb?: (e?: Error) => void) => void; flushSync?: () => void };
  return {
    write: (line: string) => inner.write(capLogLine(line)),
    // pino flushes its stream on shutdown when it can; keep that through the wrapper.
    ...(flushable.flush ? { flush: (cb?: (e?: Error) => void) => flushable.flush!(cb) } : {}),
    ...(flushable.flushSync ? { flushSync: () => flushable.flushSync!() } : {}),
  } as DestinationStream;
}

let stdout: DestinationStream | null = null;
/** One stdout destination per process, however many apps it builds (tests build many). */
const stdoutDestination = (): DestinationStream => (stdout ??= pino.destination(1));

/** Fastify/pino options: header and body secrets redacted, URLs redacted, errors trimmed, lines capped. */
export function loggerOptions(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): LoggerOptions & { stream: DestinationStream } {
  return {
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', 'adminToken', '*.key', '*.adminToken'],
      censor: '[redacted]',
    },
    serializers: {
      err: serializeError,
      error: serializeError,
      req: serializeRequest as (req: unknown) => unknown,
    },
    stream: cappedStream(destination ?? stdoutDestination()),
  };
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogMethod = (...args: unknown[]) => void;

/**
 * A request's logger, made on its first line: Fastify gives every request a child logger (its
 * reqId binding), and at the default level almost no request writes one. A call at a disabled
 * level stays a no-op; the first enabled one makes the child, which writes exactly as before.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | null = null;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  private write(level: LevelName, args: unknown[]): void {
    if (this.made === null && !(this.parent as pino.Logger).isLevelEnabled(level)) return;
    (this.logger[level] as LogMethod)(...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }
  set level(level: string) {
    this.logger.level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
  silent(): void {}
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
}

/** Fastify's `childLoggerFactory`: lazy request loggers; a route's own level or serializers get a child at once. */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined || typeof (logger as Partial<pino.Logger>).isLevelEnabled !== 'function') {
    return logger.child(bindings, options);
  }
  return new LazyRequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}
