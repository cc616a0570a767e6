/** Adds a hook to one route's own hooks, in an onRoute hook. */
import type { RouteOptions } from 'fastify';

type RouteHookName = 'onRequest' | 'preHandler' | 'onSend';

/**
 * Always a new array: Fastify copies a GET route's options for its HEAD twin before the onRoute hooks
 * run, so changing an array in place would add the hook to the twin a second time.
 */
function addHook<K extends RouteHookName>(
  route: RouteOptions,
  name: K,
  hook: NonNullable<RouteOptions[K]>,
  where: 'first' | 'last',
): void {
  const current = route[name] as unknown;
  const list: unknown[] = current === undefined ? [] : Array.isArray(current) ? current : [current];
  (route as unknown as Record<string, unknown>)[name] = where === 'first' ? [hook, ...list] : [...list, hook];
}

/** After the route's own hooks of that kind. */
export const appendHook = <K extends RouteHookName>(route: RouteOptions, name: K, hook: NonNullable<RouteOptions[K]>) =>
  addHook(route, name, hook, 'last');

/** Before the route's own hooks of that kind (a guard runs before anything the route does). */
export const prependHook = <K extends RouteHookName>(
  route: RouteOptions,
  name: K,
  hook: NonNullable<RouteOptions[K]>,
) => addHook(route, name, hook, 'first');
