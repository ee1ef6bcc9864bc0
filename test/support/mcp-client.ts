import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';

/** Starts the app on a free local port (the SDK client speaks real HTTP); returns the /mcp URL. */
export async function listenForMcp(app: FastifyInstance): Promise<URL> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return new URL('/mcp', address);
}

/** An SDK client connected over Streamable HTTP, with the key as a bearer token when given. */
export async function mcpClient(url: URL, key?: string): Promise<Client> {
  const client = new Client({ name: 'paper-arena-test', version: '0.0.0' });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** The JSON text content of a tool result (success body or error envelope). */
export function resultJson(result: unknown): Record<string, unknown> {
  const content = (result as CallToolResult).content[0];
  if (!content || content.type !== 'text') throw new Error('tool result has no text content');
  return JSON.parse(content.text) as Record<string, unknown>;
}
