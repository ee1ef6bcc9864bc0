import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface BridgeOptions {
  /** The server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: URL;
  key: string | null;
  /** Where diagnostics go; never stdout (it carries the protocol). */
  log: (line: string) => void;
}

/**
 * Relays MCP between stdio (the host that launched us) and the server's Streamable HTTP
 * endpoint, message by message. It holds no tools of its own: whatever the server lists,
 * the host sees. Resolves when the host closes stdin.
 */
export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const headers: Record<string, string> = options.key ? { authorization: `Bearer ${options.key}` } : {};
  const http = new StreamableHTTPClientTransport(options.url, { requestInit: { headers } });
  const stdio = new StdioServerTransport();
  const initializeIds = new Set<string | number>();

  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    http.send(message).catch((error: unknown) => {
      const text = error instanceof Error ? error.message : String(error);
      options.log(`paper-arena mcp: ${text}`);
      // A request must get an answer, or the host waits forever.
      if (isJSONRPCRequest(message)) {
        void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Paper Arena at ${options.url.href}: ${text}` } });
      }
    });
  };
  http.onmessage = (message: JSONRPCMessage) => {
    // The negotiated version rides on every later HTTP request, as the SDK client would send it.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(message);
  };
  http.onerror = (error) => options.log(`paper-arena mcp: ${error.message}`);
  stdio.onerror = (error) => options.log(`paper-arena mcp: ${error.message}`);

  await http.start();
  await stdio.start();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await stdio.close();
  await http.close();
}
