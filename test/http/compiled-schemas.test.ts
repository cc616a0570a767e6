/**
 * Validators and serializers are compiled once per process for what the compiler is given, so a
 * second app from the same routes compiles nothing; a schema that differs in anything the compiler
 * reads, the request part (coerced or strict) or the shared schemas gets a function of its own.
 */
import { describe, expect, it } from 'vitest';
import { buildSharedSerializer, compiledOnce } from '../../src/http/compiled-schemas.js';
import { buildValidatorPerPart } from '../../src/http/validation.js';

const route = (schema: object, httpPart?: string) => ({
  schema,
  method: 'POST',
  url: '/t',
  httpPart,
  httpStatus: '200',
});
const counted = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

describe('compiled schemas', () => {
  it('compiles once per key', () => {
    const key = `test-${Math.random()}`;
    let compiles = 0;
    const first = compiledOnce(key, () => ({ compiled: ++compiles }));
    const second = compiledOnce(key, () => ({ compiled: ++compiles }));
    expect(second).toBe(first);
    expect(compiles).toBe(1);
  });

  it('gives two apps the same serializer for equal schemas, and another for a different schema or shared schemas', () => {
    const name = { type: 'object', properties: { name: { type: 'string' } } };
    const firstApp = buildSharedSerializer({}, {});
    const secondApp = buildSharedSerializer({}, {});
    const serialize = firstApp(route(structuredClone(name)));
    expect(secondApp(route(structuredClone(name)))).toBe(serialize);
    expect(serialize({ name: 'Erasmus', secret: 'x' })).toBe('{"name":"Erasmus"}');
    const other = firstApp(route({ type: 'object', properties: { title: { type: 'string' } } }));
    expect(other).not.toBe(serialize);
    expect(other({ name: 'Erasmus', title: 'vwo 4' })).toBe('{"title":"vwo 4"}');
    const shared = { Name: { $id: 'Name', type: 'string' } };
    expect(buildSharedSerializer(shared, {})(route(structuredClone(name)))).not.toBe(serialize);
  });

  it('keeps the strict body validator and the coercing query validator apart for one schema', () => {
    const firstApp = buildValidatorPerPart({});
    const secondApp = buildValidatorPerPart({});
    const body = firstApp(route(structuredClone(counted), 'body')) as (data: unknown) => boolean;
    const query = firstApp(route(structuredClone(counted), 'querystring')) as (data: unknown) => boolean;
    expect(secondApp(route(structuredClone(counted), 'body'))).toBe(body);
    expect(secondApp(route(structuredClone(counted), 'querystring'))).toBe(query);
    expect(query).not.toBe(body);
    // Text in a query is coerced; a JSON body's "12.5" is not a number.
    expect(query({ n: '12.5' })).toBe(true);
    expect(body({ n: '12.5' })).toBe(false);
    expect(body({ n: 12.5 })).toBe(true);
    // The query's finite-number check survives the sharing.
    expect(query({ n: '1e999' })).toBe(false);
    const bounded = firstApp(route({ ...structuredClone(counted), maxProperties: 1 }, 'body'));
    expect(bounded).not.toBe(body);
  });
});
