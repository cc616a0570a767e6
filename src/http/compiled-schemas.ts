/**
 * Compiled validators and serializers, kept for the life of the process and keyed by what the
 * compiler is given: the schema's JSON, the shared schemas and the options. A process that builds
 * many apps from the same routes (the test suite builds one per test, hundreds per worker) then
 * compiles each schema once; compiling every route's schemas was most of the time an app took to be
 * ready (docs/performance.md#decisions). Two apps share a function only where the compiler would have built the same one, and
 * the functions keep no state between calls. The keys are bounded by the routes' distinct schemas.
 */
import FastJsonStringifyCompiler from '@fastify/fast-json-stringify-compiler';

const compiled = new Map<string, unknown>();

/** The function compiled for this key before, or `compile`'s, kept. */
export function compiledOnce<T>(key: string, compile: () => T): T {
  if (compiled.has(key)) return compiled.get(key) as T;
  const made = compile();
  compiled.set(key, made);
  return made;
}

/** What a compiler is given besides the route's schema, as part of a key. */
export const contextKey = (...parts: unknown[]): string => JSON.stringify(parts);

/** The route's schema as part of a key (TypeBox's symbol keys carry nothing the compilers read). */
export const schemaKey = (route: { schema?: unknown }): string => JSON.stringify(route.schema);

const serializerFactory = FastJsonStringifyCompiler.SerializerSelector();

/** Fastify's response serializers (fast-json-stringify), each compiled once per process (see above). */
export const buildSharedSerializer: FastJsonStringifyCompiler.SerializerFactory = (externalSchemas, options) => {
  const compile = serializerFactory(externalSchemas, options);
  const context = contextKey('serializer', externalSchemas ?? null, options ?? null);
  return (route) => compiledOnce(`${context}${schemaKey(route)}`, () => compile(route));
};
