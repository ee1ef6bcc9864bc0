import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preHandler' | 'preSerialization' | 'onSend';

/**
 * Adds `hook` to one route's own hooks (from an `onRoute` hook), after any it has: work only some
 * routes need runs on those routes alone instead of a check in a global hook on every request.
 * A fresh array every time: Fastify derives the HEAD twin of a GET route from the options as given.
 */
export function addRouteHook(route: RouteOptions, name: HookName, hook: unknown): void {
  const existing = route[name] as unknown;
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  (route as unknown as Record<HookName, unknown>)[name] = [...list, hook];
}
