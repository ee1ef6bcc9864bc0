import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CONTRACT_VERSION } from '../http/openapi.js';
import type { Caller } from './dispatch.js';
import { FIRST_SESSION_PROMPT, firstSessionPrompt } from './prompts.js';
import type { McpRegistry } from './registry.js';
import { RESOURCES } from './resources.js';

const INSTRUCTIONS = `Paper Arena: a paper-trading (simulated money, mUSD) and prediction-market research service.
Tools are grouped by prefix: market_*, account_*, spot_*, futures_*, pm_* (trading and keyless research), arena_*, competition*.
Coins are addressed by coinId (UCID): call market_resolve first. Trade writes (spot_order, futures_open, futures_close, pm_open) require an idempotencyKey: reuse it only to retry the same action.
Tool errors are JSON with the REST error envelope: "error" (stable code), "message", "status", and "retryAfterSeconds" when rate-limited.
Start with the prompt "safe_first_session".`;

// One validator for all servers: by default every SDK Server builds its own Ajv, which would cost
// most of a /mcp request (it is only used for elicitation, which these servers never send).
let validator: AjvJsonSchemaValidator | null = null;

/** One SDK server per /mcp request (stateless transport): handlers close over the caller. */
export function createMcpServer(registry: McpRegistry, caller: Caller): Server {
  validator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: 'paper-arena', title: 'Paper Arena', version: CONTRACT_VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: registry.listTools(caller.key !== null) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => registry.callTool(request.params.name, request.params.arguments ?? {}, caller));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map(({ path: _path, ...resource }) => resource),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => registry.readResource(request.params.uri, caller));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [FIRST_SESSION_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== FIRST_SESSION_PROMPT.name) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${request.params.name}`);
    return firstSessionPrompt(request.params.arguments ?? {});
  });
  return server;
}
