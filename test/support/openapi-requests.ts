/**
 * Requests made from the API document itself: its operations, read with their parameters and JSON
 * request bodies, give fast-check arbitraries of requests the document calls valid and of requests
 * with one part broken (schema-arbitrary.ts); `send` puts one through a harness with the credentials
 * its security names, and `judge` says whether the answer is one the document gives for it.
 */
import fc from 'fast-check';
import type { Harness } from './harness.js';
import type { Reply } from './requests.js';
import type { Breach, JsonSchema, Place, SchemaArbitraries } from './schema-arbitrary.js';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}
export interface ResponseSpec {
  description?: string;
  content?: Record<string, { schema?: JsonSchema }>;
  links?: Record<string, { operationId: string; parameters?: Record<string, string> }>;
}
interface OperationSpec {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, ResponseSpec>;
}
export interface ApiDocument {
  paths: Record<string, Record<string, OperationSpec>>;
  components: Record<string, unknown>;
}

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  parameters: Parameter[];
  /** The JSON request body's schema, when the operation takes one. */
  body: JsonSchema | undefined;
  bodyRequired: boolean;
  /** Who may call it: nobody in particular, a client's bearer token, or the admin token. */
  security: 'none' | 'bearer' | 'admin' | 'basic';
  responses: Record<string, ResponseSpec>;
}

/** One request: values by place, before they are put into a URL, headers and a body. */
export interface Call {
  path: Record<string, string>;
  query: Record<string, string>;
  header: Record<string, string>;
  body?: unknown;
}

/** A call with one part broken, and what is broken (for the report). */
export interface BrokenCall {
  call: Call;
  broken: string;
}

export function operationsOf(doc: ApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, spec]) => {
      const schemes = (spec.security ?? []).flatMap((entry) => Object.keys(entry));
      const security = schemes.includes('admin')
        ? 'admin'
        : schemes.includes('bearer')
          ? 'bearer'
          : schemes.includes('basic')
            ? 'basic'
            : 'none';
      return {
        id: spec.operationId,
        method: method.toUpperCase() as Operation['method'],
        path,
        parameters: spec.parameters ?? [],
        body: spec.requestBody?.content['application/json']?.schema,
        bodyRequired: spec.requestBody?.required === true,
        security,
        responses: spec.responses,
      } satisfies Operation;
    }),
  );
}

const PLACES = ['path', 'query', 'header'] as const;
const asText = (value: unknown): string | undefined =>
  value === undefined || typeof value === 'string' ? value : JSON.stringify(value);

export class RequestArbitraries {
  constructor(private readonly schemas: SchemaArbitraries) {}

  /** Requests the document calls valid; `fixed` path values (e.g. from a link) win over generated ones. */
  valid(operation: Operation, fixed: Record<string, string> = {}): fc.Arbitrary<Call> {
    const part = (where: (typeof PLACES)[number]) => {
      const parameters = operation.parameters.filter((p) => p.in === where && !(p.name in fixed));
      const record = fc.record(
        Object.fromEntries(
          parameters.map((p) => [p.name, this.schemas.valid(p.schema, [operation.id, where, p.name]).map(asText)]),
        ),
        { requiredKeys: parameters.filter((p) => p.required === true || where === 'path').map((p) => p.name) },
      );
      // A path segment is never empty, whatever minLength says; a value drawn as undefined is left out.
      const present = record.map((values) =>
        Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)),
      );
      return where === 'path' ? present.filter((values) => Object.values(values).every((v) => v !== '')) : present;
    };
    const body =
      operation.body === undefined
        ? fc.constant(undefined)
        : this.schemas.valid(operation.body, [operation.id, 'body']);
    return fc
      .record({ path: part('path'), query: part('query'), header: part('header'), body })
      .map(({ path, query, header, body }) => ({
        path: { ...(path as Record<string, string>), ...fixed },
        query: query as Record<string, string>,
        header: header as Record<string, string>,
        ...(body === undefined ? {} : { body }),
      }));
  }

  /** Valid requests with one part broken: one parameter or one place in the body, or a required part left out. */
  broken(operation: Operation): fc.Arbitrary<BrokenCall> | undefined {
    const ways: fc.Arbitrary<BrokenCall>[] = [];
    const valid = this.valid(operation);
    for (const parameter of operation.parameters) {
      if (parameter.in === 'cookie') continue;
      const breach = this.schemas.breach(parameter.schema, 'text' satisfies Place);
      const where = parameter.in as (typeof PLACES)[number];
      if (breach !== undefined)
        ways.push(
          fc.tuple(valid, breach).map(([call, { value, rule }]) => ({
            call: { ...call, [where]: { ...call[where], [parameter.name]: String(value) } },
            broken: `${where} ${parameter.name}: ${rule}`,
          })),
        );
      if (parameter.required === true && where === 'query')
        ways.push(
          valid.map((call) => ({
            call: { ...call, query: omit(call.query, parameter.name) },
            broken: `required query ${parameter.name} missing`,
          })),
        );
    }
    const schema = operation.body;
    if (schema !== undefined) {
      ways.push(
        valid.chain((call) =>
          (this.schemas.breachInside(schema, call.body) ?? fc.constant<Breach>({ value: call.body, rule: '' })).map(
            ({ value, rule }) => ({ call: { ...call, body: value }, broken: `body ${rule}` }),
          ),
        ),
      );
      if (operation.bodyRequired)
        ways.push(valid.map((call) => ({ call: omit(call, 'body') as Call, broken: 'required body missing' })));
    }
    // A body the chain could not break (rule '') is no breach at all.
    return ways.length === 0 ? undefined : fc.oneof(...ways).filter(({ broken }) => broken !== 'body ');
  }
}

/** Sends `call` to `operation` as the identity its security names. */
export function send(h: Harness, operation: Operation, call: Call, bearer: Record<string, string>): Promise<Reply> {
  const url = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(call.path[name] ?? ''));
  const identity = operation.security === 'admin' ? h.admin : operation.security === 'bearer' ? bearer : {};
  const headers: Record<string, string> = { ...identity, ...call.header };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  return h.app.inject({
    method: operation.method,
    url,
    query: call.query,
    headers,
    ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
  });
}

/** The problem codes a documented status names in its description ("code: title; code: title"). */
export function namedCodes(response: ResponseSpec | undefined): string[] {
  return (response?.description ?? '').split(/;\s*/).flatMap((part) => {
    const match = /^([a-z0-9-]+):/.exec(part.trim());
    return match?.[1] === undefined ? [] : [match[1]];
  });
}

/** Why `reply` is not a documented refusal of `operation` for a reason its document names, or null. */
export function unnamedRefusal(operation: Operation, reply: Reply): string | null {
  const response = operation.responses[String(reply.statusCode)];
  if (response === undefined) return `${reply.statusCode} is not documented`;
  if (!String(reply.headers['content-type']).startsWith('application/problem+json'))
    return `${reply.statusCode} without a problem body`;
  const code = reply.json<{ code?: string }>().code ?? '';
  const named = namedCodes(response);
  return named.includes(code)
    ? null
    : `${reply.statusCode} ${code} is not a reason the document names (${named.join(', ')})`;
}

/** The value a link's runtime expression points at in a JSON answer (`$response.body#/id`). */
export function linkValue(expression: string, body: unknown): string | undefined {
  const pointer = /^\$response\.body#(\/.*)$/.exec(expression)?.[1];
  if (pointer === undefined) return undefined;
  let value: unknown = body;
  for (const key of pointer.slice(1).split('/')) {
    const name = key.replaceAll('~1', '/').replaceAll('~0', '~');
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  }
  return value === undefined ? undefined : String(value);
}

function omit<T extends object>(record: T, name: string): T {
  const { [name as keyof T]: _gone, ...rest } = record;
  return rest as T;
}
