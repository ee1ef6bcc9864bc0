import { answerWhileClosing, closingOptions } from './http/closing.js';
import { FailedKeyLookups } from './ratelimit/key-lookups.js';
import { jsonBodiesOnly } from './http/json-body.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pmTradingRoutes } from './http/routes/agent/pm.js';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import Fastify, { type FastifyInstance, type FastifySchema, type FastifySchemaCompiler } from 'fastify';
import { randomUUID } from 'node:crypto';
import { holdsApiKey } from './util/secrets.js';
import type { DestinationStream } from 'pino';
import type { Config } from './config/env.js';
import type { AppContext } from './http/context.js';
import { declareFrameworkErrors } from './http/framework-errors.js';
import { installOpenApi } from './http/openapi.js';
import { installAgentAuth } from './http/plugins/auth.js';
import { capConnections, clientErrorHandler, frameworkErrors, installErrorHandling, MAX_PARAM_LENGTH, timeOutSlowBodies } from './http/plugins/errors.js';
import { loggerOptions, requestLoggerFactory } from './http/logging.js';
import { installLedger } from './http/plugins/ledger.js';
import { installMetrics } from './http/plugins/metrics.js';
import { installResponseCheck } from './http/plugins/response-check.js';
import { installPublicRateLimit } from './http/plugins/rate-limit.js';
import { installMcp } from './mcp/install.js';
import { adminRoutes } from './http/routes/admin/keys.js';
import { ledgerRoutes } from './http/routes/agent/ledger.js';
import { futuresRoutes } from './http/routes/agent/futures.js';
import { marketRoutes } from './http/routes/agent/market.js';
import { arenaRoutes } from './http/routes/arena/index.js';
import { meRoute } from './http/routes/agent/me.js';
import { spotRoutes } from './http/routes/agent/spot.js';
import { accountRoutes } from './http/routes/agent/account.js';
import { historyRoutes } from './http/routes/agent/history.js';
import { coinMoverRoutes } from './http/routes/coins/movers.js';
import { pmRoutes } from './http/routes/pm/index.js';
import { newsRoute } from './http/routes/agent/news.js';
import type { NewsSource } from './news/types.js';
import { SimNewsSource } from './news/sim-source.js';
import { pmReadModel } from './pm/read-model.js';
import { systemRoutes } from './http/routes/system.js';
import { guideRoutes } from './http/routes/guide.js';
import { pageNotFound, webRoutes } from './web/routes.js';
import { requestValidatorCompiler } from './http/validation.js';
import { LedgerWriter, type LedgerStore } from './ledger/writer.js';
import { MemoryRateLimitStore } from './ratelimit/memory-store.js';
import { RedisRateLimitStore } from './ratelimit/redis-store.js';
import type { RateLimitStore } from './ratelimit/store.js';
import type { Database } from './storage/db.js';
import type { MarketFeed } from './marketdata/feed.js';
import type { MarketReads } from './marketdata/reads.js';
import { relatedMarketsForCoin } from './pm/api.js';
import { insertLedgerRows } from './storage/ledger-repo.js';
import { KEY_CHANGED_CHANNEL } from './storage/keys-repo.js';
import { KeyCache } from './services/key-cache.js';
import { systemClock, type Clock } from './util/clock.js';
import { carriesStream } from './pm/stream-hub.js';

export interface AppDeps {
  config: Config;
  database: Database;
  adminToken: string;
  clock?: Clock;
  /** The clock of the per-minute budgets (default: `clock`; the system clock when `clock` replays a tape). */
  budgetClock?: Clock;
  rateLimits?: RateLimitStore;
  ledgerStore?: LedgerStore;
  /** Market data for engines and routes; the server passes the configured source. */
  market: MarketFeed;
  /** Coin reads (resolve, context, candles, movers); usually the same object as `market`. */
  marketReads?: MarketReads;
  /** News for /api/agent/news and PM event `relatedNews`; default: the simulated wire over `marketReads` and the PM data. */
  news?: NewsSource;
  /** Where log lines go (default stdout); tests capture them. */
  logStream?: DestinationStream;
  /** Extra routes (tests register test-only writes here) before the app is sealed. */
  extraRoutes?: (app: FastifyInstance, ctx: AppContext) => Promise<void> | void;
  /** Tests: validate every JSON response against its route's published schema (plugins/response-check.ts). */
  checkResponses?: boolean;
  /** Tests: a shorter deadline for request bodies (default BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
}

export const BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Compiles a route's request validator when the route is first called instead of at start-up
 * (~150 routes × 1–3 parts of ajv code generation, most of them never called in a session).
 * Fastify reads the errors from the function it was given, so they are passed through.
 */
function compiledOnFirstUse(compile: FastifySchemaCompiler<FastifySchema>): FastifySchemaCompiler<FastifySchema> {
  return (route) => {
    let compiled: ReturnType<typeof compile> | null = null;
    const validate = (data: unknown) => {
      compiled ??= compile(route);
      const result = compiled(data);
      (validate as { errors?: unknown }).errors = (compiled as { errors?: unknown }).errors;
      return result;
    };
    return validate as ReturnType<typeof compile>;
  };
}

/**
 * Compiles a route's response serializer (fast-json-stringify, per status code) when it first
 * serializes instead of at start-up: compiling every route's ~200 response schemas took ~0.4 s
 * of each start.
 */
const buildSerializer = SerializerSelector();
function serializedOnFirstUse(external: Parameters<typeof buildSerializer>[0], options: Parameters<typeof buildSerializer>[1]): ReturnType<typeof buildSerializer> {
  const compile = buildSerializer(external, options);
  return (route) => {
    let compiled: ((data: unknown) => string) | null = null;
    return (data: unknown) => (compiled ??= compile(route))(data);
  };
}

/** How long a client may take to send a request body once its headers arrived. */
export const BODY_TIMEOUT_MS = 30_000;

/** Builds the whole HTTP app without listening; tests drive it with inject(). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(config, deps.logStream),
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: BODY_LIMIT_BYTES,
    // Longer parameters answer the envelope from frameworkErrors instead of reaching a route.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      // an id that holds an API key would be echoed and logged: a fresh one instead
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) && !holdsApiKey(incoming) ? incoming : randomUUID();
    },
    ...closingOptions,
    // Plugins (the docs page among them) may take a while to start on a busy machine.
    pluginTimeout: 60_000,
    schemaController: { compilersFactory: { buildSerializer: serializedOnFirstUse } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  jsonBodiesOnly(app);
  timeOutSlowBodies(app, deps.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
  capConnections(app, deps.config.maxConnections);
  answerWhileClosing(app);
  // Bodies uncoerced, query/params coerced; no control characters, only finite safe numbers.
  app.setValidatorCompiler(compiledOnFirstUse(requestValidatorCompiler()));

  const rateLimits =
    deps.rateLimits ?? (config.redisUrl
      ? new RedisRateLimitStore(config.redisUrl, (error) => app.log.warn({ err: error }, 'rate-limit store (Redis) unavailable: each process counts alone until it is back'))
      : new MemoryRateLimitStore());
  const ledger = new LedgerWriter(deps.ledgerStore ?? { insert: (rows) => insertLedgerRows(deps.database.db, rows) }, {
    flushMs: config.ledgerFlushMs,
    onProblem: ({ kind, dropped, error }) =>
      app.log.warn({ err: error, kind, dropped, stats: ledger.stats() }, 'ledger writer: serving on (fail-open)'),
  });
  const keyCache = new KeyCache();
  const stopKeyChanges = await deps.database.listen(
    KEY_CHANGED_CHANNEL,
    (keyId) => keyCache.evictKey(Number(keyId)),
    (listening) => keyCache.setEnabled(listening),
  );
  const clock = deps.clock ?? systemClock;
  let wire: NewsSource | null = deps.news ?? null;
  const ctx: AppContext = {
    config,
    database: deps.database,
    clock,
    budgetClock: deps.budgetClock ?? clock,
    rateLimits,
    ledger,
    keyCache,
    keyLookups: new FailedKeyLookups(rateLimits),
    adminToken: deps.adminToken,
    market: deps.market,
    marketReads: deps.marketReads ?? null,
    relatedMarkets: (coinId) => relatedMarketsForCoin(deps.database, clock, coinId),
    news: () => {
      // the simulated wire unless a source was given; made once, on first use, over this process's market and PM data
      if (!wire && ctx.marketReads) wire = new SimNewsSource(ctx.marketReads, async () => (await pmReadModel(ctx.database, ctx.clock).snapshot()).rows);
      return wire;
    },
  };
  app.decorate('ctx', ctx);

  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  // A request pipelined behind an SSE stream on its connection closes the connection, unanswered
  // (callback style: no promise per request; not calling done ends the request here).
  app.addHook('onRequest', (request, reply, done) => {
    if (!carriesStream(request.raw.socket)) return done();
    reply.hijack();
    request.raw.socket.destroy();
  });
  // Before auth (its channel mark must be set on calls auth refuses) and before the routes (tools derive from their schemas).
  installMcp(app, ctx);
  installErrorHandling(app, pageNotFound);
  declareFrameworkErrors(app);
  if (deps.checkResponses) await installResponseCheck(app);
  installAgentAuth(app, ctx);
  installPublicRateLimit(app, ctx);
  installLedger(app, ctx);
  installMetrics(app, ctx);
  await installOpenApi(app);

  await app.register(systemRoutes(ctx));
  await app.register(guideRoutes);
  await app.register(adminRoutes(ctx));
  await app.register(meRoute);
  await app.register(ledgerRoutes(ctx));
  await app.register(pmTradingRoutes(ctx));
  await app.register(spotRoutes(ctx));
  await app.register(accountRoutes(ctx));
  await app.register(historyRoutes(ctx));
  await app.register(futuresRoutes(ctx));
  await app.register(marketRoutes(ctx));
  await app.register(newsRoute(ctx));
  await app.register(coinMoverRoutes(ctx));
  await app.register(arenaRoutes(ctx));
  await app.register(pmRoutes(ctx));
  await app.register(webRoutes(ctx));
  if (deps.extraRoutes) {
    // Test-only routes are outside the published document; the response check leaves them alone.
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, unpublished: true };
    });
    await deps.extraRoutes(app, ctx);
  }

  app.addHook('onClose', async () => {
    await stopKeyChanges();
    await ledger.close();
    if (!deps.rateLimits) await rateLimits.close();
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
