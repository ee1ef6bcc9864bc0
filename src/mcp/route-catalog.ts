import type { FastifyInstance, FastifySchema } from 'fastify';

/** One registered HTTP route as the MCP layer sees it: its own schemas and route config. */
export interface CatalogRoute {
  method: string;
  url: string;
  schema: FastifySchema;
  /** The route's `config` (scope, ledger class, publicRate …). */
  config: Record<string, unknown>;
}

/**
 * Remembers every route the app registers (`onRoute`), so MCP tools are derived from the
 * routes' own request/response schemas and follow them when they change.
 */
export class RouteCatalog {
  private readonly routes = new Map<string, CatalogRoute>();

  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        this.routes.set(`${method} ${route.url}`, {
          method,
          url: route.url,
          schema: route.schema ?? {},
          config: (route.config ?? {}) as Record<string, unknown>,
        });
      }
    });
  }

  /** A route by `METHOD /path/:param`, or undefined when the app does not serve it. */
  get(id: string): CatalogRoute | undefined {
    return this.routes.get(id);
  }
}
