import { buildApp } from './app.js';
import { adminTokenPath, resolveAdminToken } from './config/admin-token.js';
import type { Config } from './config/env.js';
import { ensureDemoKey } from './services/demo-key.js';
import { startMarketSource } from './services/market-source-boot.js';
import { claimMarketIdentity, marketIdentity, processName } from './services/market-identity.js';
import { mintsDemoKey, roleWarnings, type Role } from './config/role-defaults.js';
import { checkDeploymentSettings, deploymentSettings } from './services/deployment-settings.js';
import { loadCoins } from './marketdata/coins.js';
import { ensureHouseAgents } from './services/house-agents.js';
import { openDatabase, pgliteDirFor } from './storage/db.js';
import { initPgliteDir } from './storage/pglite-init.js';
import { startupProgress } from './util/startup-progress.js';
import { buildJobs } from './workers/jobs.js';
import { AdvisoryLockLeadership, SoleLeadership } from './workers/leadership.js';
import { Scheduler } from './workers/scheduler.js';
import { startJobs } from './workers/start-jobs.js';
import { databaseJobSchedule } from './storage/job-schedule-repo.js';
import { jobMetricsObserver } from './services/metrics.js';
import { startMetricsServer } from './services/metrics-server.js';
import { joinProcesses } from './services/process-presence.js';
import { systemClock } from './util/clock.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * The embedded database's thread stopped: nothing can be served or written any more. Exit
 * non-zero so a supervisor restarts the service; PGlite recovers its files on open, as after
 * a SIGKILL (committed writes kept, the interrupted ones gone whole).
 */
function exitOnDatabaseLost(error: Error): void {
  process.stderr.write(`fatal: the embedded database stopped (${error.message}); exiting so the service can be restarted\n`);
  process.exit(70); // EX_SOFTWARE
}

/** Starts a process in one role and closes it gracefully on SIGTERM/SIGINT. */
export async function runServer(config: Config, role: Role): Promise<void> {
  const startedAt = Date.now();
  const progress = startupProgress(say);
  for (const warning of roleWarnings(role, config)) process.stderr.write(`paper-arena ${role}: warning: ${warning}\n`);
  // before anything opens: a bad token file is refused with nothing started
  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  if (admin.warning) process.stderr.write(`paper-arena: warning: ${admin.warning}\n`);
  const pgliteDir = pgliteDirFor(config.dataDir);
  // on PostgreSQL the connections carry this process's market settings (src/services/market-identity.ts)
  const coins = loadCoins(config.coinsFile);
  const identity = config.databaseUrl ? marketIdentity(config, coins) : null;
  const name = identity ? processName(role, identity) : undefined;
  // The database opens while the simulated market back-fills (a first PGlite start creates its files in a child process).
  const opening = (async () => {
    const init = config.databaseUrl ? 'existing' : await initPgliteDir(pgliteDir);
    if (init !== 'existing') progress(init === 'copied' ? 'database: copied the ready PGlite database' : 'database: created the PGlite files');
    // serve is its database's only writer: account reads may keep in-process copies (src/storage/book-cache.ts)
    const opened = await openDatabase({
      databaseUrl: config.databaseUrl,
      applicationName: name,
      pgliteDir,
      poolMax: config.databasePoolMax,
      bookCache: role === 'serve',
      onLost: exitOnDatabaseLost,
    });
    progress(`database: open and migrated (${opened.kind}${migrationsSaid(opened.migrations?.applied ?? [])})`);
    const changed = opened.migrations?.changed ?? [];
    // an edited migration never runs again: the database keeps what its earlier text did
    if (changed.length > 0) {
      process.stderr.write(`paper-arena: warning: migration(s) changed since this database applied them: ${changed.join(', ')} (the database keeps what the earlier text did; see docs/deployment.md)\n`);
    }
    return opened;
  })();
  opening.catch(() => undefined); // awaited below; this only keeps an early failure from being reported as unhandled
  // processes sharing PostgreSQL must serve one market: checked before this one writes any of it
  if (identity && name) {
    await claimMarketIdentity((await opening).db, identity, name);
    for (const warning of await checkDeploymentSettings((await opening).db, deploymentSettings(config, role), name)) {
      process.stderr.write(`paper-arena ${role}: warning: ${warning}\n`);
    }
  }
  const source = await startMarketSource(config, opening, progress, coins);
  const database = await opening;
  const priced = source.market.coins().filter((c) => source.market.quote(c.coinId) !== null).length;
  // live mode offline said "serving prices" with none: say so, and what waits for them
  progress(priced > 0 ? `market: serving prices (${priced} coins)` : 'market: no prices yet (the source has not answered; orders are refused and /readyz waits until it does)');
  const app = await buildApp({ config, database, adminToken: admin.token, clock: source.clock, budgetClock: systemClock, market: source.market, marketReads: source.market, news: source.news });

  const scheduler =
    role === 'api'
      ? null
      : new Scheduler(
          buildJobs({
            database,
            market: app.ctx.market,
            checkpointMarket: source.checkpoint,
            config,
            marketReads: source.market,
            houseAgents: config.houseAgents,
            futuresOpenEnabled: config.futuresOpenEnabled,
            pmOpenEnabled: config.pmOpenEnabled,
            clock: source.clock,
          }),
          database.kind === 'postgres' ? new AdvisoryLockLeadership(database) : new SoleLeadership(),
          source.clock,
          app.log,
          // Each run is logged at info: the job-run record (LOG_LEVEL=info shows it).
          jobMetricsObserver((run) => app.log.info(run, 'job ran')),
          databaseJobSchedule(database.db),
        );

  // SIGTERM with SHUTDOWN_DRAIN_MS: /readyz turns 503 so a load balancer stops sending new
  // requests, while everything else is still served; only then does the server close.
  let draining = false;
  app.addHook('onRequest', async (request, reply) => {
    if (draining && request.routeOptions.url === '/readyz') {
      return reply.code(503).send({ error: 'draining', message: 'shutting down; send new requests to another process' });
    }
  });

  // Every process says it is there before it serves or runs a job; a serve process's book cache
  // turns off for good once another process shares its PostgreSQL database.
  const leaveProcesses = await joinProcesses(database, () => {
    if (!database.bookCache?.enabled) return;
    database.bookCache.disable();
    app.log.warn('another process uses this database: the account-read cache of this serve process is off (run api + worker roles to scale)');
  });

  const metricsServer = config.metricsPort ? await startMetricsServer(config.metricsPort, config.metricsHost) : null;
  let address: string | null = null;
  if (role !== 'worker') address = await app.listen({ port: config.port, host: config.host });
  else await app.ready();
  // Once per database whichever process starts first (HOUSE_AGENTS=off creates none).
  if (config.houseAgents) await ensureHouseAgents(database.db);
  // a laptop's serve gets a demo key to try; a production api does not mint one unless asked (DEMO_KEY=on)
  const demo = address && mintsDemoKey(role, config) ? await ensureDemoKey(database.db, config.dataDir) : null;
  app.log.info({ role, startupMs: Date.now() - startedAt }, 'started');
  // The banner comes last, so nothing scrolls it away (per-request logs need LOG_LEVEL=info).
  if (address) {
    // with a wildcard HOST, Fastify names the loopback address: say the socket takes every interface
    const everywhere = config.host === '0.0.0.0' || config.host === '::' ? `, every interface: HOST=${config.host}` : '';
    say(`paper-arena ${role}: listening on ${address} (database: ${database.kind}, market data: ${config.marketData.kind}${everywhere})`);
    say(`  API docs: ${address}/docs   guides: ${address}/docs/guide   OpenAPI: ${address}/openapi.json`);
    say(
      admin.source === 'env'
        ? '  admin token: from ADMIN_TOKEN'
        : `  admin token: ${adminTokenPath(config.dataDir)}${admin.created ? ' (created now, mode 0600)' : ''}`,
    );
    if (config.metricsPort) say(`  metrics: http://${config.metricsHost}:${config.metricsPort}/metrics (no token)`);
    if (demo) {
      say(`  demo key (all scopes; also in ${demo.path}): ${demo.key}`);
      say(`    try: curl -H "Authorization: Bearer ${demo.key}" ${address}/api/agent/me`);
    }
  } else {
    say(`paper-arena worker: running jobs (database: ${database.kind})`);
    if (config.metricsPort) say(`  metrics: http://${config.metricsHost}:${config.metricsPort}/metrics`);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const drainMs = signal === 'SIGTERM' && address ? config.shutdownDrainMs : 0;
    const force = setTimeout(() => process.exit(1), 15_000 + drainMs);
    force.unref();
    try {
      if (drainMs > 0) {
        draining = true;
        await new Promise((resolve) => setTimeout(resolve, drainMs));
      }
      await scheduler?.stop(); // finish the running job, give up leadership
      source.stop();
      metricsServer?.close();
      await app.close(); // stop accepting, finish in-flight requests, flush the ledger
      await leaveProcesses();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // the terminal it ran in closed (an ssh session ended): stop as gracefully, not on the spot
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
  stopWithLauncher(() => void shutdown('SIGTERM'));

  // Not awaited: a shutdown meanwhile waits for the first ingest (scheduler.stop).
  if (scheduler) void startJobs(scheduler, progress, app.log);
}

/**
 * Under `npm start` the server is a child of npm's shell: a SIGTERM sent to npm (a supervisor, a
 * container stop) ends npm and the shell but is not passed on, and the server went on serving,
 * orphaned, until a hard kill. Run by npm, a server whose parent is gone stops as on SIGTERM.
 * (Started any other way, a parent that exits is no reason to stop.)
 */
function stopWithLauncher(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop();
  }, 500);
  watch.unref();
}

/** An upgrade says which migrations it applied (an operator could not tell 0031–0033 had run). */
function migrationsSaid(applied: string[]): string {
  if (applied.length === 0) return '';
  const names = applied.map((name) => name.replace(/\.sql$/, ''));
  return names.length <= 3 ? `; applied ${names.join(', ')}` : `; applied ${names.length} migrations, ${names[0]} … ${names.at(-1)}`;
}
