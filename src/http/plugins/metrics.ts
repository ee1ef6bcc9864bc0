import type { FastifyInstance } from 'fastify';
import { clearMetricsSource, httpDuration, metricsRegistry, rateLimitRefusals, setMetricsSource } from '../../services/metrics.js';
import { requireAdmin } from '../routes/admin/admin-auth.js';
import type { AppContext } from '../context.js';
import { CredentialsLockout } from './rate-limit.js';

/** What the scrape-time gauges read from the app. */
export type HttpMetricsSource = Pick<AppContext, 'database' | 'ledger' | 'marketReads' | 'clock'>;

/**
 * Prometheus metrics: one histogram observation per response (by route pattern, never the raw
 * URL, so label sets stay bounded) and `GET /metrics` for the operator (admin token).
 */
export function installMetrics(app: FastifyInstance, ctx: AppContext): void {
  setMetricsSource(ctx);
  // requests refused for wrong credentials (admin token, unknown keys), not for a spent budget
  const lockedOut = new WeakSet<object>();
  app.addHook('onError', (request, _reply, error, done) => {
    if (error instanceof CredentialsLockout) lockedOut.add(request);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const route = request.routeOptions;
    httpDuration.observe({ method: request.method, route: route.url ?? 'unmatched', status: String(status) }, reply.elapsedTime / 1000);
    if (status === 429) rateLimitRefusals.inc({ budget: lockedOut.has(request) ? 'credentials' : route.config.publicRate ? 'public' : 'agent' });
    done();
  });
  app.addHook('onClose', async () => clearMetricsSource(ctx));

  app.get(
    '/metrics',
    {
      onRequest: requireAdmin(ctx),
      // Operator-only and outside the contract: documented in docs/metrics.md, not in the OpenAPI.
      schema: { hide: true },
    },
    async (_request, reply) => reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
  );
}
