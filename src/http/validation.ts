/**
 * Request validation with Ajv, one validator per request part (Fastify's schemaController factory),
 * each compiled once per process (compiled-schemas.ts).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';
import type { FastifyRouteSchemaDef, FastifyValidationResult } from 'fastify/types/schema.js';
import { compiledOnce, contextKey, schemaKey } from './compiled-schemas.js';

const ajvPool = AjvCompiler();
const AJV_OPTIONS = { removeAdditional: false, useDefaults: true, allErrors: true } as const;
// Fastify types the factory after ajv-compiler's declarations, which do not match its runtime contract.
export type FastifyValidatorFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;
type ValidatorFactory = (
  externalSchemas: Record<string, unknown>,
  options?: object,
) => (route: FastifyRouteSchemaDef<unknown>) => unknown;

/**
 * Query strings, params and headers arrive as text, so they are coerced to their schema types; JSON
 * bodies already carry types and are validated strictly ("12.5" is not a price, true is not a number).
 */
export function buildValidatorPerPart(externalSchemas: Record<string, unknown>, serverOptions?: object) {
  const pool = ajvPool as unknown as ValidatorFactory;
  const coercing = pool(externalSchemas, { ...serverOptions, customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' } });
  const strict = pool(externalSchemas, { ...serverOptions, customOptions: { ...AJV_OPTIONS, coerceTypes: false } });
  const context = contextKey('validator', externalSchemas, serverOptions ?? null);
  return (route: FastifyRouteSchemaDef<unknown>) => {
    const body = route.httpPart === 'body';
    const compile = () =>
      (body ? strict(route) : finiteOnly(coercing(route) as AjvValidate)) as FastifyValidationResult;
    return compiledOnce(`${context}${body ? 'strict' : 'coercing'}${schemaKey(route)}`, compile);
  };
}

interface AjvValidate {
  (data: unknown, context?: unknown): boolean;
  errors?: unknown;
  schemaEnv?: unknown;
}

/**
 * Ajv coerces "1e999" to Infinity and then lets it pass `integer` and `maximum`; a query value must be a
 * finite number, so a coerced part with a non-finite number fails validation (400) like any bad value.
 */
function finiteOnly(validate: AjvValidate): AjvValidate {
  const checked: AjvValidate = (data, context) => {
    const ok = validate(data, context);
    checked.errors = validate.errors;
    if (!ok || data === null || typeof data !== 'object') return ok;
    const bad = Object.entries(data).find(([, value]) => typeof value === 'number' && !Number.isFinite(value));
    if (bad === undefined) return ok;
    checked.errors = [
      { instancePath: `/${bad[0]}`, schemaPath: '#', keyword: 'type', params: {}, message: 'must be a finite number' },
    ];
    return false;
  };
  if (validate.schemaEnv !== undefined) checked.schemaEnv = validate.schemaEnv;
  return checked;
}
