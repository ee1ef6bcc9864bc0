import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { documentedRoute, sharedResponseHeaders } from './openapi-route-doc.js';
import { TRACE_HEADER_MAX_LENGTH as MAX, TRACE_HEADERS } from './plugins/ledger.js';

/** The contract version (spec §9), independent of the package version. */
export const CONTRACT_VERSION = '1.7.0';

const LIFECYCLE = `Contract v1 (description version ${CONTRACT_VERSION}), stability **stable**, compatibility **additive-only**.
Within v1 a documented field keeps its name and meaning and is never silently removed or repurposed; new fields and
endpoints may be added at any time, so treat responses as open maps. Removing or renaming a field, changing its type or
the meaning of a value requires a new versioned path prefix, announced before the old one is withdrawn. v1 is a contract
over existing paths, not a URL prefix: paths stay under \`/api/...\`. Paths outside the contract (\`/api/internal/*\`,
\`/api/admin/*\`) may change without notice.`;

/**
 * A query parameter with a default may be left out, so the document lists it as optional; the route's own
 * schema keeps it required so the handler always sees the filled-in default (ajv useDefaults).
 */
export function defaultedQueryOptional(schema: FastifySchema | undefined): FastifySchema | undefined {
  const query = schema?.querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined;
  if (!query?.properties || !query.required) return schema;
  const required = query.required.filter((name) => query.properties![name]?.default === undefined);
  if (required.length === query.required.length) return schema;
  const { required: _old, ...rest } = query;
  return { ...schema, querystring: required.length > 0 ? { ...rest, required } : rest };
}

/** The trace headers every keyed agent route reads into its ledger row (contract §5.7; checked by the ledger plugin, src/http/plugins/ledger.ts). */
const TraceHeaders = Type.Object({
  [TRACE_HEADERS.runId]: Type.Optional(Type.String({ maxLength: MAX.runId, description: 'your run id: traces this call in your private ledger (a body agentTrace.runId wins)' })),
  [TRACE_HEADERS.decisionId]: Type.Optional(Type.String({ maxLength: MAX.decisionId, description: 'your decision id (a body agentTrace.decisionId wins)' })),
  [TRACE_HEADERS.strategyLabel]: Type.Optional(Type.String({ maxLength: MAX.strategyLabel })),
  [TRACE_HEADERS.confidence]: Type.Optional(Type.String({ maxLength: MAX.confidence, description: 'a number between 0 and 1' })),
});

/** Keyed agent routes document the trace headers they accept. */
export function documentedTraceHeaders(schema: FastifySchema, url: string): FastifySchema {
  return schema && url.startsWith('/api/agent/') && schema.headers === undefined ? { ...schema, headers: TraceHeaders } : schema;
}

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    transformObject: (document) => sharedResponseHeaders('openapiObject' in document ? document.openapiObject : {}),
    transform: ({ schema, url, route }) => ({ schema: schema && documentedRoute(documentedTraceHeaders(defaultedQueryOptional(schema) ?? schema, url), route), url }),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paper Arena API',
        version: CONTRACT_VERSION,
        license: { name: 'MIT', identifier: 'MIT' },
        description: `Paper-trading API for automated agents, Agent Arena and prediction-market research data. Not financial advice.\n\nGuides (configuration, execution, market data, arena rules, deployment, metrics, benchmarks): [/docs/guide](/docs/guide).\n\nAcceptable use of market data: [terms](/api/terms) (GET /api/terms). Keyless prediction-market data is read-and-cite with attribution.\n\n${LIFECYCLE}`,
      },
      // the document describes the server that serves it, wherever it is deployed
      servers: [{ url: '/', description: 'this server' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key sk_live_…' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (operator only)' },
        },
      },
      tags: [
        { name: 'agent', description: 'Key-authenticated paper-trading surface' },
        { name: 'admin', description: 'Operator surface (outside the contract)' },
        { name: 'system', description: 'Health and readiness' },
        { name: 'prediction-markets', description: 'Keyless cross-venue prediction-market research data (12 venues, SSE stream)' },
      ],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // the plugin's own CSP (its inline scripts by hash), not to be framed (clickjacking); inline
    // styles allowed (the UI sets them as it renders; with hashes listed 'unsafe-inline' would be
    // ignored, so the style directive is replaced whole); no upgrade-insecure-requests, which
    // would send a plain-HTTP install's assets to https
    staticCSP: true,
    transformStaticCSP: (header) =>
      header
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        .replace(/style-src [^;]*;/, "style-src 'self' 'unsafe-inline';")
        .replace(/\s*upgrade-insecure-requests;?/, ''),
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-content-type-options', 'nosniff');
        done();
      },
    },
  });
}
