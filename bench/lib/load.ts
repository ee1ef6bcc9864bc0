/** autocannon, driven from the harness process: a warm-up, then the measured run. */
import autocannon from 'autocannon';
import { round } from './processes.js';

export interface LoadSettings {
  /** measured seconds */
  duration: number;
  /** warm-up seconds before each measured run (0 = none) */
  warmup: number;
  connections: number;
  pipelining: number;
  /** seconds before a request counts as a timeout (and an error) */
  timeout: number;
}

export interface Measurement {
  /** mean of the per-second request counts of the measured run */
  reqPerSec: number;
  reqPerSecStddev: number;
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP90Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  totalRequests: number;
  /** socket errors + timeouts (autocannon counts a timeout as an error too) */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  durationS: number;
}

function summarize(result: autocannon.Result): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count;
  return {
    reqPerSec: round(result.requests.mean, 1),
    reqPerSecStddev: round(result.requests.stddev, 1),
    latencyMeanMs: round(result.latency.mean, 2),
    latencyP50Ms: round(result.latency.p50, 2),
    latencyP90Ms: round(result.latency.p90, 2),
    latencyP99Ms: round(result.latency.p99, 2),
    latencyMaxMs: round(result.latency.max, 2),
    totalRequests: result.totalCompletedRequests ?? result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    durationS: result.duration,
  };
}

async function run(url: string, requests: autocannon.Request[], duration: number, settings: LoadSettings): Promise<autocannon.Result> {
  return await autocannon({
    url,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration,
    timeout: settings.timeout,
    requests,
  });
}

/** Sends exactly `amount` requests (seeding data before a row; not measured). */
export async function sendAmount(url: string, requests: autocannon.Request[], amount: number, connections: number, timeout: number): Promise<{ non2xx: number; errors: number }> {
  const result = await autocannon({ url, connections, amount, timeout, requests });
  return { non2xx: result.non2xx, errors: result.errors };
}

/**
 * `requests` is the cycle every connection walks through (e.g. one entry per key,
 * so load is spread over all keys); entries are pre-built once, so the load
 * generator does no per-request work beyond writing bytes.
 */
export async function measure(url: string, requests: autocannon.Request[] | (() => autocannon.Request[]), settings: LoadSettings): Promise<Measurement> {
  // A factory gives each run fresh per-run state (e.g. a pool of keys claimed per cycle).
  const make = typeof requests === 'function' ? requests : () => requests;
  if (settings.warmup > 0) await run(url, make(), settings.warmup, settings);
  return summarize(await run(url, make(), settings.duration, settings));
}
