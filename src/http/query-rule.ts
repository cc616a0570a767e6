/**
 * One rule for query strings on every route: unknown parameters are ignored (a cache-buster such as
 * `_=1` or a tracking parameter never breaks a call), and a parameter with a default is optional.
 * Applied once when each route is registered, so it costs nothing per request and no route can drift.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
  additionalProperties?: unknown;
}

export function lenientQuery(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const object = schema as ObjectSchema;
  if (object.properties === undefined) return schema;
  const properties = object.properties;
  const required = (object.required ?? []).filter((name) => properties[name]?.default === undefined);
  // Spread keeps TypeBox's symbol keys; `required` is left out when nothing remains (JSON Schema wants it non-empty).
  const { required: _old, additionalProperties: _strict, ...rest } = object;
  return { ...rest, ...(required.length > 0 ? { required } : {}) };
}

export function registerQueryRule(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.querystring === undefined) return;
    route.schema = { ...route.schema, querystring: lenientQuery(route.schema.querystring) };
  });
}
