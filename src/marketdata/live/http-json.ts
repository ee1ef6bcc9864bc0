/**
 * GET a JSON document from a public source with a timeout per attempt and retries with
 * exponential backoff (network errors, timeouts, 429 and 5xx). fetch and sleep are
 * injected so tests answer from recorded files and never wait or touch the network.
 */
import { readCappedJson } from '../../util/capped-json.js';

export type FetchLike = (url: string, init?: { signal?: AbortSignal; headers?: Record<string, string> }) => Promise<{
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  body?: ReadableStream<Uint8Array> | null;
  json(): Promise<unknown>;
}>;

export interface HttpOptions {
  fetch: FetchLike;
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** First backoff; doubled each retry (a 429's Retry-After wins when longer, up to 60 s). */
  backoffMs: number;
  sleep: (ms: number) => Promise<void>;
  headers?: Record<string, string>;
}

export const DEFAULT_HTTP: Omit<HttpOptions, 'fetch'> = {
  timeoutMs: 10_000,
  retries: 2,
  backoffMs: 1_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};

export class SourceError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

const retryable = (status: number) => status === 429 || status >= 500;

export async function getJson(url: string, options: HttpOptions): Promise<unknown> {
  let lastError = '';
  let lastStatus: number | null = null;
  for (let attempt = 0; attempt <= options.retries; attempt += 1) {
    let waitMs = options.backoffMs * 2 ** attempt;
    try {
      const response = await options.fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json', ...options.headers } });
      if (response.ok) return await readCappedJson(response);
      lastStatus = response.status;
      lastError = `HTTP ${response.status}`;
      if (!retryable(response.status)) break;
      const retryAfter = Number(response.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter > 0) waitMs = Math.max(waitMs, Math.min(60, retryAfter) * 1000);
    } catch (error) {
      const e = error as Error;
      lastStatus = null;
      lastError = e.name === 'TimeoutError' || e.name === 'AbortError' ? `timed out after ${options.timeoutMs} ms` : e.message;
    }
    if (attempt < options.retries) await options.sleep(waitMs);
  }
  throw new SourceError(`GET ${redact(url)} failed: ${lastError}`, lastStatus, options.retries + 1);
}

/** Query strings may carry an API key; logs show the path only. */
function redact(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?…`;
}
