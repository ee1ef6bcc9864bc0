import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashKey, looksLikeKey } from '../../domain/api-keys.js';
import type { Caller } from '../../mcp/dispatch.js';
import type { McpRegistry } from '../../mcp/registry.js';
import { createMcpServer } from '../../mcp/server.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { presentedKey, resolveKey } from '../plugins/auth.js';
import { spendPublicBudget } from '../plugins/rate-limit.js';
import { nestedDeeperThan } from '../../util/json-depth.js';

export const MCP_PATH = '/mcp';

/** JSON-RPC 2.0 error codes for a request refused before any method ran. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const SERVER_ERROR = -32000;

/** The id of a single parsed message (JSON-RPC answers an error with it when it can be read), else null. */
function messageId(body: unknown): string | number | null {
  const id = isObject(body) ? body.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** A JSON-RPC error as the HTTP answer (what an MCP client reads when the request itself is refused). */
function rpcError(reply: FastifyReply, status: number, code: string, message: string, rpcCode = SERVER_ERROR, body: unknown = null) {
  return reply
    .status(status)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', id: messageId(body), error: { code: rpcCode, message: `${code}: ${message}`, data: { error: code, message } } });
}

/** A body the endpoint cannot read (not JSON, over 64 KB, another media type) is a JSON-RPC error, not the REST envelope. */
function bodyError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 500;
  if (status >= 500 || error.validation) throw error; // the app's handler: logged, REST envelope
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return rpcError(reply, 413, 'payload_too_large', 'the request body is over 64 KB', INVALID_REQUEST);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return rpcError(reply, 415, 'unsupported_media_type', 'send JSON-RPC as application/json', INVALID_REQUEST);
  if (error instanceof ApiError) return rpcError(reply, error.statusCode, error.code, error.message, INVALID_REQUEST); // e.g. a compressed body
  return rpcError(reply, status, 'invalid_request', 'the body is not valid JSON', PARSE_ERROR);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deeper messages are refused: the SDK's parser recursed until the stack overflowed (-32603 with its text). */
const MAX_MESSAGE_DEPTH = 64;


/**
 * A `tools/call` whose params cannot name a call (no tool name, arguments not an object): the SDK
 * would answer -32603 with its parser's dump; JSON-RPC says -32602 (invalid params).
 */
function malformedToolCall(body: unknown): { id: unknown; message: string } | null {
  if (!isObject(body) || body.method !== 'tools/call') return null;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== 'string') return { id: body.id ?? null, message: 'params.name: the tool to call' };
  if (params.arguments !== undefined && !isObject(params.arguments)) return { id: body.id ?? null, message: 'params.arguments: an object of the tool\'s arguments' };
  return null;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
/** The host part of a Host header or an Origin URL (`[::1]:3000` → `[::1]`); null when unreadable. */
function hostnameOf(value: string | undefined, isOrigin: boolean): string | null {
  if (!value) return null;
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * A server listening on loopback only takes MCP messages addressed to loopback (MCP transport
 * spec: validate Origin): a web page whose own name was made to resolve to 127.0.0.1 (DNS
 * rebinding) sends its own name as Host and Origin, and is refused.
 */
function foreignToLoopback(listenHost: string, request: FastifyRequest): boolean {
  if (!LOOPBACK.has(listenHost)) return false;
  const host = hostnameOf(request.headers.host, false);
  if (host !== null && !LOOPBACK.has(host)) return true;
  const origin = hostnameOf(request.headers.origin, true);
  return origin !== null && !LOOPBACK.has(origin);
}

/** A single message that calls a REST route in-process (whose own budget then counts it). */
const callsRoute = (body: unknown): boolean => isObject(body) && (body.method === 'tools/call' || body.method === 'resources/read');

/** The session's caller: keyless without a key; a bad key is refused like on REST (401). */
async function callerOf(ctx: AppContext, request: FastifyRequest): Promise<Caller | string> {
  const raw = presentedKey(request);
  const caller = { key: null, ip: request.ip, requestId: request.id };
  if (raw === null) return caller;
  if (!looksLikeKey(raw)) return 'the API key is malformed';
  if (!(await resolveKey(ctx, hashKey(raw), request.ip))) return 'the API key is invalid or revoked';
  return { ...caller, key: raw };
}

/** Only the headers the transport reads: building a full web Request per call is measurable. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(`http://localhost${request.url}`, { method: request.method, headers });
}

/**
 * `/mcp`: the MCP Streamable HTTP transport of the official SDK, stateless (a fresh server
 * and transport per POST, JSON answers). Tools call the REST routes in-process, so keys,
 * scopes, budgets, ledger and idempotency are the REST ones.
 */
export function mcpRoutes(ctx: AppContext, registry: McpRegistry) {
  return async (app: FastifyInstance) => {
    app.setErrorHandler(bodyError);
    app.post(MCP_PATH, { schema: { hide: true } }, async (request, reply) => {
      if (foreignToLoopback(ctx.config.host, request)) {
        return rpcError(reply, 403, 'forbidden_host', 'this server listens on loopback: call it as 127.0.0.1 or localhost', SERVER_ERROR, request.body);
      }
      // one message per request (MCP 2025-06-18 dropped JSON-RPC batches): a batch of 100
      // tools/list cost one budget unit and answered 20 MB
      if (Array.isArray(request.body)) {
        return rpcError(reply, 400, 'invalid_request', 'send one JSON-RPC message per request (batches are not supported)', INVALID_REQUEST);
      }
      if (nestedDeeperThan(request.body, MAX_MESSAGE_DEPTH)) {
        return rpcError(reply, 400, 'invalid_request', `the message nests more than ${MAX_MESSAGE_DEPTH} levels deep`, INVALID_REQUEST, request.body);
      }
      const caller = await callerOf(ctx, request).catch((error: unknown) => {
        if (error instanceof ApiError) return error; // too many unknown keys from this address
        throw error;
      });
      if (caller instanceof ApiError) return rpcError(reply.headers(caller.headers), caller.statusCode, caller.code, caller.message, SERVER_ERROR, request.body);
      if (typeof caller === 'string') {
        reply.header('www-authenticate', 'Bearer error="invalid_token"');
        return rpcError(reply, 401, 'unauthorized', caller, SERVER_ERROR, request.body);
      }
      // every message counts against the address's public budget, with a key or without: tool
      // calls and resource reads spend it in the REST route they call, the others (initialize,
      // lists, prompts) here — a keyed tools/list (110 KB) cost nothing before
      if (!callsRoute(request.body)) {
        const refusal = await spendPublicBudget(ctx, reply, request.ip);
        if (refusal instanceof ApiError) return rpcError(reply.headers(refusal.headers), refusal.statusCode, refusal.code, refusal.message, SERVER_ERROR, request.body);
      }
      const malformed = malformedToolCall(request.body);
      if (malformed) {
        return reply.header('content-type', 'application/json').send({ jsonrpc: '2.0', id: malformed.id, error: { code: INVALID_PARAMS, message: malformed.message } });
      }
      // Not closed afterwards: a per-request pair holds no timer or socket, and close() costs an Error per call.
      const server = createMcpServer(registry, caller);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
      reply.status(response.status);
      response.headers.forEach((value, name) => reply.header(name, value));
      return reply.send(await response.text());
    });
    // Stateless: no server-initiated stream to GET and no session to DELETE.
    const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
      rpcError(reply.header('allow', 'POST'), 405, 'method_not_allowed', 'this MCP endpoint is stateless: POST JSON-RPC messages');
    app.get(MCP_PATH, { schema: { hide: true } }, notAllowed);
    app.delete(MCP_PATH, { schema: { hide: true } }, notAllowed);
  };
}
