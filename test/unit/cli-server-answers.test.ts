import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { serverAnswers } from '../../src/cli/admin-ops.js';
import { CliError } from '../../src/cli/args.js';
import { freePort } from '../e2e/support/crash-server.js';

/**
 * The CLI goes through a running server's admin API and opens the database itself only when no
 * server runs: a server too busy to answer must not make it open a PGlite directory the server holds.
 */
let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = null;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const port = await freePort();
  server = createServer(handler!);
  await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${port}`;
}

describe('serverAnswers', () => {
  it('is false only when nothing listens', async () => {
    expect(await serverAnswers(`http://127.0.0.1:${await freePort()}`, 500)).toBe(false);
  });

  it('is true when /healthz answers', async () => {
    const base = await serve((_req, res) => res.end('{"status":"ok"}'));
    expect(await serverAnswers(base, 500)).toBe(true);
  });

  it('refuses when a server listens but does not answer in time', async () => {
    const base = await serve(() => undefined); // accepts, never answers
    await expect(serverAnswers(base, 300)).rejects.toThrow(CliError);
    await expect(serverAnswers(base, 300)).rejects.toThrow(/did not answer \/healthz within 0.3 s/);
  });

  it('refuses when something else answers on the port', async () => {
    const base = await serve((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    await expect(serverAnswers(base, 500)).rejects.toThrow(/answered 404/);
  });
});
