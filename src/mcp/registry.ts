import { ErrorCode, McpError, type CallToolResult, type ReadResourceResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { callTool, type Caller } from './dispatch.js';
import { executionModelDocument, RESOURCES } from './resources.js';
import type { RouteCatalog } from './route-catalog.js';
import { TOOL_SPECS } from './tool-table.js';
import { buildTool, type BuiltTool } from './tool-schema.js';

/** Every tool, resource and prompt of the /mcp endpoint, derived once from the registered routes. */
export class McpRegistry {
  private tools: Map<string, BuiltTool> | null = null;
  private lists: { keyed: Tool[]; keyless: Tool[] } | null = null;

  constructor(
    private readonly app: FastifyInstance,
    private readonly catalog: RouteCatalog,
    private readonly channel: Record<string, string>,
  ) {}

  /** Built on first use: by then every route has been registered. */
  private built(): Map<string, BuiltTool> {
    if (!this.tools) {
      this.tools = new Map();
      for (const spec of TOOL_SPECS) {
        const tool = buildTool(spec, this.catalog);
        if (tool) this.tools.set(spec.name, tool);
      }
      const all = [...this.tools.values()];
      this.lists = { keyed: all.map((t) => t.definition), keyless: all.filter((t) => !t.keyed).map((t) => t.definition) };
    }
    return this.tools;
  }

  /** A keyless session sees only the keyless tools. */
  listTools(withKey: boolean): Tool[] {
    this.built();
    return withKey ? this.lists!.keyed : this.lists!.keyless;
  }

  async callTool(name: string, args: Record<string, unknown>, caller: Caller): Promise<CallToolResult> {
    const tool = this.built().get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
    return callTool(this.app, tool, args, caller, this.channel);
  }

  async readResource(uri: string, caller: Caller): Promise<ReadResourceResult> {
    const resource = RESOURCES.find((r) => r.uri === uri);
    if (!resource) throw new McpError(ErrorCode.InvalidParams, `unknown resource ${uri}`);
    let text: string;
    if (resource.path === null) text = JSON.stringify(executionModelDocument());
    else {
      const res = await this.app.inject({ method: 'GET', url: resource.path, remoteAddress: caller.ip, headers: { 'x-request-id': caller.requestId } });
      if (res.statusCode >= 400) throw refusal(resource.path, res.statusCode, res.body);
      text = res.body;
    }
    return { contents: [{ uri, mimeType: resource.mimeType, text }] };
  }
}

/**
 * A route's refusal of a resource read as a JSON-RPC error: the caller's (4xx: a budget spent,
 * with its retryAfterSeconds) is an invalid request carrying the REST envelope; only a 5xx is internal.
 */
function refusal(path: string, status: number, body: string): McpError {
  let envelope: Record<string, unknown> = {};
  try {
    envelope = JSON.parse(body) as Record<string, unknown>;
  } catch {
    // not the JSON envelope: the status alone
  }
  const message = `${path} answered ${status}${typeof envelope.error === 'string' ? ` ${envelope.error}` : ''}: ${typeof envelope.message === 'string' ? envelope.message : body.slice(0, 300)}`;
  return new McpError(status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest, message, { status, ...envelope });
}
