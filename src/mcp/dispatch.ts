import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { TRACE_HEADERS } from '../http/plugins/ledger.js';
import type { BuiltTool, ToolRoute } from './tool-schema.js';

/** Who is calling, as the /mcp request presented itself. */
export interface Caller {
  /** The raw API key from the /mcp request, or null (keyless session). */
  key: string | null;
  ip: string;
  requestId: string;
}

type Args = Record<string, unknown>;

function pickRoute(tool: BuiltTool, args: Args): ToolRoute {
  for (const r of tool.routes) {
    if (!r.when) return r;
    const value = args[r.when.argument] ?? (tool.selector?.name === r.when.argument ? tool.selector.default : undefined);
    if (r.when.equals === undefined ? value !== undefined && value !== null : value === r.when.equals) return r;
  }
  return tool.routes.at(-1)!;
}

const queryValue = (value: unknown): string | string[] =>
  Array.isArray(value) ? value.map((v) => String(v)) : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

/** An argument the call cannot be made with: the tool's own checks, before any route sees it. */
interface BadArgument {
  argument: string;
  message: string;
}

/** The REST request a tool call stands for: each argument goes where the route's schema declares it. */
function toInjection(tool: BuiltTool, args: Args, caller: Caller, channel: Record<string, string>): InjectOptions | BadArgument {
  const selected = tool.selector ? args[tool.selector.name] : undefined;
  if (tool.selector && selected !== undefined && !tool.selector.values.includes(selected as string)) {
    return { argument: tool.selector.name, message: `${tool.selector.name} must be one of ${tool.selector.values.join(', ')}` };
  }
  const r = pickRoute(tool, args);
  const params: Record<string, string> = {};
  const query: Record<string, string | string[]> = {};
  const body: Args = {};
  const trace: Args = {};
  const headers: Record<string, string> = { ...channel, 'x-request-id': caller.requestId };
  if (tool.keyed && caller.key !== null) headers.authorization = `Bearer ${caller.key}`;

  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || name === tool.selector?.name) continue;
    const isTrace = tool.traceArgs.has(name);
    if (r.params.has(name)) params[name] = String(value);
    else if (r.query.has(name)) query[name] = queryValue(value);
    else if (r.body.has(name)) body[name] = value;
    else if (!isTrace) {
      // Unknown to the route: pass it on, so the route answers exactly as REST does (strict bodies refuse it).
      if (r.hasBody) body[name] = value;
      else query[name] = queryValue(value);
    }
    // A route's own field of that name (the ledger's runId filter, pm_opportunity's decisionId) is
    // not a trace: the route reads it as REST callers send it (pm_opportunity traces its row by it).
    const ownField = r.params.has(name) || r.query.has(name) || r.body.has(name);
    if (isTrace && value !== null && !ownField) {
      if (r.traceInBody) trace[name] = value;
      else if (name in TRACE_HEADERS) headers[TRACE_HEADERS[name as keyof typeof TRACE_HEADERS]] = String(value);
    }
  }
  if (Object.keys(trace).length > 0) body.agentTrace = trace;
  for (const [name, value] of Object.entries(tool.fixed)) {
    if (r.query.has(name)) query[name] = value;
    else if (r.body.has(name)) body[name] = value;
  }

  let url = r.route.url;
  for (const name of r.params) {
    const value = params[name];
    if (value === undefined || value === '') return { argument: name, message: `${name} is required` };
    // "." and ".." survive encodeURIComponent and would move the call to another route, as would
    // a value equal to another route's literal segment in this place (handle "decisions").
    if (value === '.' || value === '..' || r.routeLiterals.get(name)?.has(value)) return { argument: name, message: `${name} is not a valid value` };
    url = url.replace(`:${name}`, encodeURIComponent(value));
  }
  const options: InjectOptions = { method: r.route.method as InjectOptions['method'], url, query, headers, remoteAddress: caller.ip };
  if (r.hasBody) options.payload = body;
  return options;
}

const TRACE_ARGUMENT_OF_HEADER = new Map<string, string>(Object.entries(TRACE_HEADERS).map(([name, headerName]) => [headerName, name]));

/** The tool argument an envelope's `field` (`body.agentTrace.confidence`, `x-service-confidence`) refers to. */
function argumentOf(tool: BuiltTool, field: unknown): string | null {
  if (typeof field !== 'string') return null;
  const name = TRACE_ARGUMENT_OF_HEADER.get(field) ?? field.replace(/^(body|query|params)\./, '').replace(/^agentTrace\./, '').split('.')[0]!;
  const properties = (tool.definition.inputSchema.properties ?? {}) as Record<string, unknown>;
  return name in properties ? name : null;
}

function parseJson(text: string, contentType: unknown): unknown {
  if (typeof contentType !== 'string' || !contentType.includes('json')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const header = (value: string | string[] | number | undefined): string | null =>
  value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : String(value);

/** A header holding a count or an id (digits) as a number; null when absent or anything else. */
const integerOf = (value: string | null): number | null => (value !== null && /^\d{1,15}$/.test(value) ? Number(value) : null);

/** Calls the tool's REST route in-process (no network) and turns its answer into a tool result. */
export async function callTool(
  app: FastifyInstance,
  tool: BuiltTool,
  args: Args,
  caller: Caller,
  channel: Record<string, string>,
): Promise<CallToolResult> {
  const injection = toInjection(tool, args, caller, channel);
  if ('argument' in injection) {
    const envelope = { error: 'invalid_request', message: injection.message, field: injection.argument, argument: injection.argument, status: 400 };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
  }
  const res = await app.inject(injection);
  const status = res.statusCode;
  const http = {
    status,
    // The ledger row's integer id (GET /api/agent/ledger `id`), null when the call was not recorded.
    ledgerEventId: integerOf(header(res.headers['x-service-ledger-event-id'])),
    ledgerStatus: header(res.headers['x-service-ledger-status']),
    rateLimitRemaining: integerOf(header(res.headers['ratelimit-remaining'])),
  };
  const _meta = { 'paper-arena/http': http };
  if (status >= 400) {
    const parsed = parseJson(res.body, res.headers['content-type']);
    const envelope: Args =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? { ...(parsed as Args) } : { error: `http_${status}`, message: res.body.slice(0, 500) };
    const argument = argumentOf(tool, envelope.field);
    if (argument) envelope.argument = argument;
    const retryAfter = Number(header(res.headers['retry-after']));
    if (envelope.retryAfterSeconds === undefined && Number.isFinite(retryAfter) && retryAfter > 0) envelope.retryAfterSeconds = retryAfter;
    envelope.status = status;
    // No structuredContent on errors: it would be checked against the success outputSchema.
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], _meta };
  }
  const result: CallToolResult = { content: [{ type: 'text', text: res.body }], _meta };
  if (tool.structured) {
    const parsed = parseJson(res.body, res.headers['content-type']);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) result.structuredContent = parsed as Args;
  }
  return result;
}
