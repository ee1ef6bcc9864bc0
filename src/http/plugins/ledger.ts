import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
  preSerializationHookHandler,
} from 'fastify';
import { LedgerIdBlocks } from '../../ledger/id-blocks.js';
import { sanitize } from '../../ledger/summaries.js';
import { type LedgerInsert, reserveLedgerIdBlock } from '../../storage/ledger-repo.js';
import { uuidv7 } from '../../util/ids.js';
import { redactOptional } from '../../util/secrets.js';
import type { AppContext, TraceFields } from '../context.js';
import { invalidRequest } from '../errors.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../schemas.js';
import { CONTROL_MESSAGE, hasControlCharacters } from '../validation.js';
import { addRouteHook } from './route-hooks.js';

export const TRACE_HEADERS = {
  runId: 'x-service-run-id',
  decisionId: 'x-service-decision-id',
  strategyLabel: 'x-service-strategy-label',
  confidence: 'x-service-confidence',
} as const;

/** Longest value each trace header takes (the OpenAPI document publishes the same: src/http/openapi.ts). */
export const TRACE_HEADER_MAX_LENGTH = { runId: 200, decisionId: 200, strategyLabel: 120, confidence: 32 } as const;

/**
 * Node reads header bytes as latin1: a UTF-8 value ("run-ü") arrives as one character per byte
 * and was stored garbled, so a ledger filter on it never matched. Such a value is read as UTF-8;
 * bytes that are not UTF-8 keep HTTP's latin1 reading. (A value with characters above U+00FF was
 * not read from bytes — an in-process call — and is kept.)
 */
function utf8Header(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  const text = Buffer.from(value, 'latin1').toString('utf8');
  return text.includes('\ufffd') ? value : text;
}

function headerText(request: FastifyRequest, name: string, max: number): string | null {
  const raw = request.headers[name];
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const value = utf8Header(raw);
  if (value.length > max) throw invalidRequest(name, `${name} must be at most ${max} characters`);
  // as in a body's agentTrace (MCP passes tool arguments here without an HTTP parser in between)
  if (hasControlCharacters(value)) throw invalidRequest(name, `${name} ${CONTROL_MESSAGE}`);
  return value.trim();
}

/** Trace metadata from the X-Service-* headers (GET calls). */
function traceFromHeaders(request: FastifyRequest): TraceFields {
  const confidenceText = headerText(request, TRACE_HEADERS.confidence, TRACE_HEADER_MAX_LENGTH.confidence);
  let confidence: number | null = null;
  if (confidenceText !== null) {
    confidence = Number(confidenceText);
    if (!Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
      throw invalidRequest(TRACE_HEADERS.confidence, 'X-Service-Confidence must be a number between 0 and 1');
    }
  }
  return {
    runId: headerText(request, TRACE_HEADERS.runId, TRACE_HEADER_MAX_LENGTH.runId),
    decisionId: headerText(request, TRACE_HEADERS.decisionId, TRACE_HEADER_MAX_LENGTH.decisionId),
    strategyLabel: headerText(request, TRACE_HEADERS.strategyLabel, TRACE_HEADER_MAX_LENGTH.strategyLabel),
    confidence,
    rationaleSummary: null,
  };
}

/** Trace metadata from a body's `agentTrace` (already validated by the route schema). */
function traceFromBody(body: unknown): Partial<TraceFields> | null {
  if (!body || typeof body !== 'object') return null;
  const trace = (body as { agentTrace?: Partial<TraceFields> | null }).agentTrace;
  return trace && typeof trace === 'object' ? trace : null;
}

/**
 * Calls whose ledger row is stored before the answer: those that change a book or the record,
 * and quotes — a write counts as quoted when the quote's row is there as the write's row lands,
 * and with several API processes the write may land on another process than its quote.
 */
const STORED_BEFORE_ANSWER: ReadonlySet<string> = new Set(['write', 'cancel', 'report', 'quote']);

/**
 * Turns every keyed /api/agent/* call into a private ledger row (contract §2.10, §5 rule 7).
 * The row id is assigned here, before persistence.
 * The hooks are attached to the keyed routes only (after the key check), never run elsewhere.
 */
export function installLedger(app: FastifyInstance, ctx: AppContext): void {
  const ids = new LedgerIdBlocks(() => reserveLedgerIdBlock(ctx.database.db));
  app.addHook('onReady', async () => {
    await ids.refill();
  });
  const start: onRequestHookHandler = (request, _reply, done) => {
    request.startedAtMs = ctx.clock.now();
    request.trace = traceFromHeaders(request);
    done();
  };

  const traceBody: preHandlerHookHandler = (request, _reply, done) => {
    const fromBody = traceFromBody(request.body);
    if (fromBody && request.trace) {
      request.trace = {
        runId: fromBody.runId ?? request.trace.runId,
        decisionId: fromBody.decisionId ?? request.trace.decisionId,
        strategyLabel: fromBody.strategyLabel ?? request.trace.strategyLabel,
        confidence: fromBody.confidence ?? request.trace.confidence,
        rationaleSummary: fromBody.rationaleSummary ?? null,
      };
    }
    done();
  };

  // The summary is built from the object the handler (or error handler) answered, never by
  // parsing the serialized response; routes that send pre-serialized text set it themselves.
  const keepResponse: preSerializationHookHandler<unknown> = (request, _reply, payload, done) => {
    if (request.agentKey && request.ledgerResponse === undefined) request.ledgerResponse = payload;
    done(null, payload);
  };

  /** The call's ledger row, or null for a call without a key. */
  const rowOf = (request: FastifyRequest, reply: FastifyReply, config: FastifyContextConfig, endpoint: string): LedgerInsert | null => {
    const key = request.agentKey;
    if (!key) return null;
    const note = request.ledgerNote ?? {};
    const status = reply.statusCode;
    const completedAtMs = ctx.clock.now();
    const startedAtMs = request.startedAtMs ?? completedAtMs;
    const parsed = request.ledgerResponse ?? null;
    const bodyReasons = (parsed as { blockReasons?: unknown } | null)?.blockReasons;
    const trace = request.trace;
    const id = uuidv7(startedAtMs);
    const seq = ids.take();
    const ledgerStatus = note.ledgerStatus ?? (status >= 500 ? 'error' : status >= 400 ? 'rejected' : 'success');
    const traced = Boolean(trace && (trace.runId || trace.decisionId));
    const summary = request.ledgerSummary !== undefined ? request.ledgerSummary : sanitize(parsed);
    const responseSummary = traced && note.observation !== undefined ? { ...(summary as object), observation: note.observation } : summary;
    return {
      id,
      ...(seq !== null ? { seq } : {}),
      keyId: key.keyId,
      method: request.method,
      endpoint,
      venue: note.venue ?? config.ledger?.venue ?? null,
      eventType: config.ledger?.eventType ?? 'read',
      statusCode: status,
      ledgerStatus,
      latencyMs: Math.max(0, Math.round(reply.elapsedTime)),
      // A write refused before its handler ran (schema, scope, limits) still names the key it was sent with.
      idempotencyKey: note.idempotencyKey ?? idempotencyKeyOf(request),
      relatedEntityType: note.relatedEntityType ?? null,
      relatedEntityId: note.relatedEntityId !== undefined ? String(note.relatedEntityId) : null,
      requestSummary: sanitize({
        ...(request.ledgerChannel ? { channel: request.ledgerChannel } : {}),
        query: request.query ?? null,
        params: request.params ?? null,
        body: request.method === 'GET' ? null : (request.body ?? null),
        ...(note.instrument !== undefined ? { instrument: note.instrument } : {}),
      }),
      responseSummary,
      blockReasons:
        note.blockReasons ??
        (Array.isArray(bodyReasons) ? bodyReasons.filter((r): r is string => typeof r === 'string') : []),
      // trace text is the caller's: an API key pasted into it is redacted like in the summaries
      runId: redactOptional(trace?.runId),
      decisionId: redactOptional(trace?.decisionId),
      strategyLabel: redactOptional(trace?.strategyLabel),
      confidence: trace?.confidence ?? null,
      rationaleSummary: redactOptional(trace?.rationaleSummary),
      startedAt: new Date(startedAtMs),
      completedAt: new Date(completedAtMs),
    };
  };

  // The headers say the ledger records the call (contract §5 rule 7): a read's row is written in
  // the next batch; a quote's or write's is stored before the answer leaves, so a crash right
  // after it cannot leave a trade without its row (calls waiting together share one insert).
  const recordHeaders = (reply: FastifyReply, row: LedgerInsert): void => {
    if (row.seq != null) reply.header('X-Service-Ledger-Event-Id', String(row.seq));
    reply.header('X-Service-Ledger-Status', row.ledgerStatus);
  };
  const recordBatched: (config: FastifyContextConfig, endpoint: string) => onSendHookHandler = (config, endpoint) => (request, reply, payload, done) => {
    const row = rowOf(request, reply, config, endpoint);
    if (row) {
      ctx.ledger.enqueue(row);
      if (ctx.ledger.recording) recordHeaders(reply, row);
    }
    done(null, payload);
  };
  const recordStored: (config: FastifyContextConfig, endpoint: string) => onSendHookHandler = (config, endpoint) => async (request, reply, payload) => {
    const row = rowOf(request, reply, config, endpoint);
    if (row && (await ctx.ledger.enqueueAndStore(row))) recordHeaders(reply, row);
    return payload;
  };

  app.addHook('onRoute', (route) => {
    const config = route.config;
    if (!config?.scope) return;
    const endpoint = route.url;
    addRouteHook(route, 'onRequest', start);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) addRouteHook(route, 'preHandler', traceBody);
    addRouteHook(route, 'preSerialization', keepResponse);
    const stored = config.ledger !== undefined && STORED_BEFORE_ANSWER.has(config.ledger.eventType);
    addRouteHook(route, 'onSend', stored ? recordStored(config, endpoint) : recordBatched(config, endpoint));
  });
}

/** The body's idempotencyKey when it is one a write would accept, else null. */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  if (request.method === 'GET') return null;
  const key = (request.body as { idempotencyKey?: unknown } | null | undefined)?.idempotencyKey;
  return typeof key === 'string' && key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? key : null;
}
