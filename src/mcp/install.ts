import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../http/context.js';
import { mcpRoutes } from '../http/routes/mcp.js';
import { installInternalChannel } from './internal-channel.js';
import { McpRegistry } from './registry.js';
import { RouteCatalog } from './route-catalog.js';

/**
 * Mounts `/mcp`. Call it before the REST routes are registered: the tool table is derived
 * from the routes' own schemas, collected as they register.
 */
export function installMcp(app: FastifyInstance, ctx: AppContext): void {
  const catalog = new RouteCatalog();
  catalog.install(app);
  const channel = installInternalChannel(app);
  void app.register(mcpRoutes(ctx, new McpRegistry(app, catalog, channel)));
}
