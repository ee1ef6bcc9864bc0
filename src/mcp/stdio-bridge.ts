import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long a closed stdin waits for the answers still on their way. */
const DRAIN_MS = 60_000;

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
 * the host sees. Resolves when the host has closed stdin and every request it sent has its
 * answer (a host piping a few requests and closing stdin still gets them), or after DRAIN_MS.
 */
export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const headers: Record<string, string> = options.key ? { authorization: `Bearer ${options.key}` } : {};
  const http = new StreamableHTTPClientTransport(options.url, { requestInit: { headers } });
  const stdio = new StdioServerTransport();
  const initializeIds = new Set<string | number>();
  const unanswered = new Set<string | number>();
  /** Every POST under way, notifications too: closing the transport would abort them. */
  const sending = new Set<Promise<void>>();
  let drained: (() => void) | null = null;
  const answered = (id: string | number) => {
    unanswered.delete(id);
    if (unanswered.size === 0) drained?.();
  };

  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message)) {
      unanswered.add(message.id);
      if (message.method === 'initialize') initializeIds.add(message.id);
    }
    const sent = http
      .send(message)
      .catch((error: unknown) => {
        // already logged by the transport's onerror (once per failure)
        const text = error instanceof Error ? error.message : String(error);
        // A request must get an answer, or the host waits forever.
        if (isJSONRPCRequest(message)) {
          void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Paper Arena at ${options.url.href}: ${text}` } });
          answered(message.id);
        }
      })
      .finally(() => sending.delete(sent));
    sending.add(sent);
  };
  http.onmessage = (message: JSONRPCMessage) => {
    // The negotiated version rides on every later HTTP request, as the SDK client would send it.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(message);
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) answered(message.id);
  };
  let closing = false;
  // closing aborts what the transport still has open (the SDK's GET stream after initialized): not a problem to report
  http.onerror = (error) => {
    if (!closing) options.log(`paper-arena mcp: ${error.message}`);
  };
  stdio.onerror = (error) => options.log(`paper-arena mcp: ${error.message}`);

  await http.start();
  await stdio.start();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  // a notification piped last (notifications/initialized) is still being posted: closing now aborted it
  const drainTimer = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_MS).unref());
  await Promise.race([Promise.allSettled([...sending]), drainTimer]);
  if (unanswered.size > 0) {
    await Promise.race([new Promise<void>((resolve) => (drained = resolve)), drainTimer]);
  }
  closing = true;
  await stdio.close();
  await http.close();
}
