// Minimal typings for the parts of autocannon@8 the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** called before each request is sent; returns the request to send */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      /** called with each answer (the body is collected only when this is set) */
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      /** seconds before a request counts as a timeout */
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
      /** stop after this many requests (instead of `duration`) */
      amount?: number;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      [percentile: string]: number;
    }

    interface Result {
      url: string;
      connections: number;
      pipelining: number;
      duration: number;
      samples: number;
      start: Date;
      finish: Date;
      requests: Histogram;
      /** milliseconds */
      latency: Histogram;
      /** bytes per second */
      throughput: Histogram;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      totalCompletedRequests?: number;
      statusCodeStats: Record<string, { count: number }>;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
