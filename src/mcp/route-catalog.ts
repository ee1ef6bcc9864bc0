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
        this.add({ method, url: route.url, schema: route.schema ?? {}, config: (route.config ?? {}) as Record<string, unknown> });
      }
    });
  }

  add(route: CatalogRoute): void {
    this.routes.set(`${route.method} ${route.url}`, route);
  }

  /**
   * For each path parameter of a route, the literal segments other routes of its method have in
   * that place, all else equal: a value equal to one reaches that route instead (the router
   * prefers the literal), so `GET /api/arena/:handle` with handle `decisions` is the dataset.
   */
  literalsInPlaceOfParams(method: string, url: string): Map<string, Set<string>> {
    const own = url.split('/');
    const out = new Map<string, Set<string>>();
    for (const other of this.routes.values()) {
      if (other.method !== method || other.url === url) continue;
      const theirs = other.url.split('/');
      if (theirs.length !== own.length) continue;
      const differing = own.flatMap((segment, i) => (segment === theirs[i] || (segment.startsWith(':') && theirs[i]!.startsWith(':')) ? [] : [i]));
      const at = differing[0];
      if (differing.length !== 1 || !own[at!]!.startsWith(':') || theirs[at!]!.startsWith(':')) continue;
      const name = own[at!]!.slice(1);
      if (!out.has(name)) out.set(name, new Set());
      out.get(name)!.add(theirs[at!]!);
    }
    return out;
  }

  /** A route by `METHOD /path/:param`, or undefined when the app does not serve it. */
  get(id: string): CatalogRoute | undefined {
    return this.routes.get(id);
  }
}
