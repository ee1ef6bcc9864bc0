import { runStdioBridge } from '../mcp/stdio-bridge.js';
import { flagText, httpUrl, type Flags } from './args.js';

export const MCP_USAGE = `  mcp [--url http://127.0.0.1:3000] [--key sk_live_…]
                                               relay MCP between stdio and a server's /mcp endpoint (for MCP hosts that
                                               only launch commands); PAPER_ARENA_URL / PAPER_ARENA_KEY work too`;

/** `/mcp` of a base URL, or the URL itself when it already names a path. */
export function mcpEndpoint(text: string): URL {
  const url = httpUrl(text, '--url');
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/mcp';
  return url;
}

/** `paper-arena mcp`: runs the stdio bridge until the host closes stdin; returns the exit code. */
export async function runMcpCommand(flags: Flags): Promise<number> {
  const value = (name: string, env: string): string | undefined => flagText(flags, name) ?? (process.env[env] || undefined);
  const url = mcpEndpoint(value('url', 'PAPER_ARENA_URL') ?? 'http://127.0.0.1:3000');
  const key = value('key', 'PAPER_ARENA_KEY') ?? null;
  await runStdioBridge({ url, key, log: (line) => process.stderr.write(`${line}\n`) });
  return 0;
}
