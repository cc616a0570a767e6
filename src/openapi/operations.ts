/**
 * Documents one route in the OpenAPI document from what it declares (http/route-config.ts) and its
 * schema, only when the document is built (never on the request path): its security, every problem
 * it can answer (from its inputs, its guard, its declarations and the codes its service names), the
 * statuses the cross-cutting parts send (304, 204) and the headers they read. Nothing is derived from
 * the URL, and no description is parsed back.
 */
import type { FastifySchema, RouteOptions } from 'fastify';
import { withDocumentedRules } from '../http/documented.js';
import { changesState, hasEtag, isBearer, type RouteAuth, takesIdempotencyKey } from '../http/route-config.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency/service.js';
import { PROBLEMS, type ProblemCode } from '../problems/catalogue.js';
import { BEFORE_ANY_ROUTE, BEFORE_THE_ROUTE, problemResponse } from './problems.js';

declare module 'fastify' {
  interface FastifySchema {
    /** The OpenAPI operationId: the SDK's method name, so it is chosen by hand and never derived from the URL. */
    operationId?: string;
    /**
     * Answers documented in OpenAPI only: non-JSON bodies that Fastify must not serialise with a schema.
     * On a status the schema's `response` has too, its media types are added to that answer's.
     */
    documentedResponses?: Readonly<Record<string, unknown>>;
  }
}

type Responses = Record<string, unknown>;
interface ContentResponse {
  description: string;
  content: Record<string, unknown>;
}

const isContentResponse = (response: unknown): response is ContentResponse =>
  typeof response === 'object' && response !== null && 'content' in response;

/**
 * One answer documented from two sources (a schema the route serialises, a problem or a streamed body):
 * both media types, under one description. A JSON response schema becomes its application/json.
 */
function mergeResponses(existing: unknown, added: ContentResponse): unknown {
  if (existing === undefined) return added;
  const first: ContentResponse = isContentResponse(existing)
    ? existing
    : {
        description: (existing as { description?: string }).description ?? 'Default Response',
        content: { 'application/json': { schema: existing } },
      };
  // The route's own media types first, and its own schema where both name one.
  const content = { ...first.content, ...added.content, ...first.content };
  const description =
    first.description === added.description || first.description === 'Default Response'
      ? added.description
      : `${first.description}; ${added.description}`;
  return { description, content };
}
type DocumentedRoute = Pick<RouteOptions, 'method' | 'config'>;

const SECURITY: Readonly<Record<Exclude<RouteAuth, { scope: string }>, unknown[]>> = {
  public: [],
  'client-credentials': [{ basic: [] }],
  admin: [{ admin: [] }],
  portal: [],
};

export function securityOf(auth: RouteAuth | undefined): unknown[] {
  if (auth === undefined) return [];
  // Several scopes any of which admits: one security requirement each (OpenAPI's "or").
  return isBearer(auth) ? [auth.scope, ...(auth.orScopes ?? [])].map((scope) => ({ bearer: [scope] })) : SECURITY[auth];
}

/** Every problem code the route can answer, from its declarations and its schema. */
export function problemsOf(schema: FastifySchema, route: DocumentedRoute): ProblemCode[] {
  const auth = route.config?.auth;
  // The token endpoint answers in the RFC 6749 shape OAuth libraries parse, documented by its schema.
  if (auth === 'client-credentials') return [];
  const codes: ProblemCode[] = [];
  if (schema.body !== undefined || schema.querystring !== undefined || schema.params !== undefined)
    codes.push('validation-failed');
  if (schema.body !== undefined) codes.push('malformed-body', 'body-too-large', 'unsupported-media-type');
  if (isBearer(auth)) {
    codes.push('unauthenticated', 'invalid-token', 'token-expired', 'insufficient-scope');
    if (route.config?.rateLimit !== false) codes.push('rate-limited');
  }
  if (auth === 'admin' || auth === 'portal') {
    codes.push('unauthenticated');
    if (changesState(route)) codes.push('csrf-rejected');
  }
  if (schema.params !== undefined) codes.push('not-found');
  // Below the route's role; no operator has less than viewer.
  if (auth === 'admin' && route.config?.role !== undefined && route.config.role !== 'viewer') codes.push('forbidden');
  if (takesIdempotencyKey(route)) codes.push('validation-failed', 'idempotency-key-in-use', 'idempotency-key-reused');
  codes.push(...(route.config?.problems ?? []));
  if (auth !== 'public' && auth !== undefined) codes.push('internal');
  return [...new Set(codes)];
}

export function documentRoute(schema: FastifySchema | undefined, route: DocumentedRoute): FastifySchema | undefined {
  if (schema === undefined || schema.hide === true) return schema;
  const responses: Responses = { ...((schema.response ?? {}) as Responses) };
  const byStatus = new Map<string, ProblemCode[]>();
  const ownShape = route.config?.auth === 'client-credentials';
  for (const code of [...problemsOf(schema, route), ...(ownShape ? [] : BEFORE_THE_ROUTE), ...BEFORE_ANY_ROUTE]) {
    const status = PROBLEMS[code].status >= 500 ? '5XX' : String(PROBLEMS[code].status);
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) byStatus.set(status, [...codes, code]);
  }
  for (const [status, codes] of byStatus) responses[status] = mergeResponses(responses[status], problemResponse(codes));
  for (const [status, documented] of Object.entries(schema.documentedResponses ?? {}))
    responses[status] = isContentResponse(documented) ? mergeResponses(responses[status], documented) : documented;

  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const hasSuccess = Object.keys(responses).some((status) => /^2/.test(status));
  if (!hasSuccess && methods.includes('DELETE')) responses['204'] = { description: 'Done; no content', type: 'null' };
  const etag = hasEtag(route);
  if (etag)
    responses['304'] = { description: 'Not modified: the If-None-Match tag still matches; no body', type: 'null' };

  const props: Record<string, unknown> = {};
  if (takesIdempotencyKey(route)) {
    props['idempotency-key'] = {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Makes a retry safe: within 24 h the same key and body return the first answer (Idempotent-Replayed: true); another body is a 422.',
    };
  }
  if (etag)
    props['if-none-match'] = { type: 'string', description: 'An ETag from an earlier answer: 304 when unchanged' };
  const withHeaders =
    Object.keys(props).length > 0 && schema.headers === undefined
      ? { headers: { type: 'object', properties: props } }
      : {};

  // The contract keys of this module are read here and not copied into the document.
  const { documentedResponses: _documented, ...documented } = schema;
  // The request as the document states it: the rules the services check themselves merged in (http/documented.ts).
  const parts = ['body', 'querystring', 'params', 'headers'] as const;
  const stated = Object.fromEntries(
    parts.filter((part) => documented[part] !== undefined).map((part) => [part, withDocumentedRules(documented[part])]),
  );
  return {
    ...documented,
    ...stated,
    ...withHeaders,
    security: securityOf(route.config?.auth),
    response: responses,
    // The least operator role that may call an admin operation (the console and tools read it).
    ...(route.config?.role === undefined ? {} : { 'x-operator-role': route.config.role }),
  } as FastifySchema;
}
