/**
 * Everything the OpenAPI document says beyond the route schemas, applied only when the document is
 * built (never on the request path): stable operationIds (the SDK's method names), the statuses the
 * cross-cutting parts really send (304, 409/422 for Idempotency-Key, 413, 415, 204), the headers they
 * read, public routes marked as public, and the document-level parts: servers, license, tags, the
 * oauth2 client-credentials scheme ("Try it" in /docs fetches its own token) and the 3.1 `webhooks`.
 */
import type { FastifySchema } from 'fastify';
import { TOKEN_AUDIENCE } from '../auth/token-service.js';
import { SCOPES } from '../auth/scopes.js';
import { PROBLEMS, type ProblemCode } from '../errors.js';
import { EVENT_NAMES, EVENTS, type EventName } from '../events/catalogue.js';
import { hasEtag } from '../http/etag.js';
import { takesIdempotencyKey } from '../http/idempotency.js';
import { securityFor } from './instrument.js';
import { problemResponse } from './openapi-problems.js';

declare module 'fastify' {
  interface FastifySchema {
    /** The OpenAPI operationId: the SDK's method name, so it is chosen by hand and never derived from the URL. */
    operationId?: string;
    /** Problems the route's service answers beyond those its inputs and guard cause (documented, not validated). */
    problems?: readonly ProblemCode[];
    /** Answers documented in OpenAPI only: non-JSON bodies that Fastify must not serialise with a schema. */
    documentedResponses?: Readonly<Record<string, unknown>>;
  }
}

type Responses = Record<string, unknown>;
type Parameter = Record<string, unknown>;

export function documentRoute(
  schema: FastifySchema | undefined,
  url: string,
  method: string,
): FastifySchema | undefined {
  if (schema === undefined || schema.hide === true) return schema;
  const responses: Responses = { ...((schema.response ?? {}) as Responses) };
  const problems: Record<string, ProblemCode[]> = {};
  const add = (code: ProblemCode): void => {
    const status = String(PROBLEMS[code].status);
    problems[status] = [...(problems[status] ?? []), code];
  };
  const isToken = url === '/api/auth/token';
  if (schema.body !== undefined && !isToken) {
    add('body-too-large');
    add('unsupported-media-type');
  }
  const idempotent = takesIdempotencyKey({ method, url });
  if (idempotent) {
    add('validation-failed');
    add('idempotency-key-in-use');
    add('idempotency-key-reused');
  }
  for (const code of schema.problems ?? []) add(code);
  for (const [status, codes] of Object.entries(problems)) {
    const existing = responses[status] as { description?: string } | undefined;
    if (existing === undefined) responses[status] = problemResponse(codes);
    else if (typeof existing.description === 'string' && existing.description.includes(': ')) {
      // A problem response written by withProblemResponses: name the further codes too.
      const known = existing.description.split('; ').map((entry) => entry.split(':')[0]);
      const more = codes.filter((code) => !known.includes(code));
      if (more.length > 0) responses[status] = problemResponse([...(known as ProblemCode[]), ...more]);
    }
  }
  for (const [status, documented] of Object.entries(schema.documentedResponses ?? {})) {
    responses[status] ??= documented;
  }
  const hasSuccess = Object.keys(responses).some((status) => /^2/.test(status));
  if (!hasSuccess && method === 'DELETE') responses['204'] = { description: 'Done; no content', type: 'null' };
  const etag = hasEtag({ method, url });
  if (etag)
    responses['304'] = { description: 'Not modified: the If-None-Match tag still matches; no body', type: 'null' };

  const headers: Parameter = { type: 'object', properties: {} as Record<string, unknown> };
  const props = headers.properties as Record<string, unknown>;
  if (idempotent) {
    props['idempotency-key'] = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Makes a retry safe: within 24 h the same key and body return the first answer (Idempotent-Replayed: true); another body is a 422.',
    };
  }
  if (etag)
    props['if-none-match'] = { type: 'string', description: 'An ETag from an earlier answer: 304 when unchanged' };
  const withHeaders = Object.keys(props).length > 0 && schema.headers === undefined ? { headers } : {};
  const security = schema.security === undefined && securityFor(url) === undefined ? { security: [] } : {};

  // The contract keys of this module are read here and not copied into the document.
  const { problems: _problems, documentedResponses: _documented, ...documented } = schema;
  return { ...documented, ...withHeaders, ...security, response: responses } as FastifySchema;
}

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  auth: `Access tokens (OAuth 2.0 client credentials, RFC 9068 JWTs with aud "${TOKEN_AUDIENCE}"), their keys and the server metadata`,
  offers: 'Published school-book offers by EAN (scope offers:read)',
  lml: 'Learning-material lists: schools, lists, structure (scope lml:read) and webhook subscriptions (scope webhooks:manage)',
  operations: 'Health, readiness, metrics and problem type pages',
  subscriptions:
    'Webhook subscriptions and their deliveries (scope webhooks:manage); the events are described under webhooks',
};

const signatureHeaders = (event: EventName) => [
  {
    name: 'x-hook-signature',
    in: 'header',
    required: true,
    description: 'base64 HMAC-SHA256 of the raw body, keyed with your webhook secret string (whsec_… as issued)',
    schema: { type: 'string' },
  },
  {
    name: 'x-hook-event',
    in: 'header',
    required: true,
    description: 'The event name',
    schema: { type: 'string', enum: [event] },
  },
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the delivery id, stable across retries (de-duplicate on it)',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: Unix seconds of this attempt',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: space-separated `v1,<base64>` signatures of `id.timestamp.body` (two during a secret rotation overlap)',
    schema: { type: 'string' },
  },
];

function webhooks(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const event of EVENT_NAMES) {
    const { resource, fetch } = EVENTS[event];
    // Schools, lists and offers are named by 32 hex characters; a subscription by its own id (sub_…).
    const subscription = resource === 'subscription';
    out[event] = {
      post: {
        operationId: `on${event
          .split('.')
          .map((part) => part[0]?.toUpperCase() + part.slice(1))
          .join('')}`,
        tags: [subscription ? 'subscriptions' : resource === 'offer' ? 'offers' : 'lml'],
        summary: `${event}: sent to subscriptions for this event`,
        description:
          `${subscription ? `${EVENTS[event].description} ` : ''}A POST to your notificationUrl with exactly these bytes. ` +
          `Fetch the resource by its identifier (GET ${fetch}). Answer 2xx within WEBHOOK_TIMEOUT_MS; anything else is retried on the retry schedule.`,
        security: [],
        parameters: signatureHeaders(event),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['type', 'resource', 'identifier'],
                additionalProperties: false,
                properties: {
                  type: { type: 'string', enum: [...EVENTS[event].types] },
                  resource: { type: 'string', enum: [resource] },
                  identifier: { type: 'string', pattern: subscription ? '^sub_[0-9A-Za-z]+$' : '^[0-9a-f]{32}$' },
                },
              },
              example: {
                type: EVENTS[event].types[0],
                resource,
                identifier: subscription ? 'sub_4fT9kQ2mXc8LrP0aZ1bNw7y' : '0f3c2a9be1d84c6f9a0b7c1d2e3f4a5b',
              },
            },
          },
        },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery' },
          '410': { description: 'Gone: the subscription is disabled at once' },
          default: { description: 'Any other answer (or none in time) is retried' },
        },
      },
    };
  }
  return out;
}

interface OpenApiObject {
  paths?: Record<string, Record<string, { tags?: string[] }>>;
  components?: { securitySchemes?: Record<string, unknown> };
  [key: string]: unknown;
}

export function documentObject<T extends object>(openapiObject: T): T {
  const doc = openapiObject as OpenApiObject;
  const tagNames = new Set<string>();
  for (const item of Object.values(doc.paths ?? {}))
    for (const operation of Object.values(item)) for (const tag of operation.tags ?? []) tagNames.add(tag);
  tagNames.add('lml');
  // Integrators land on their API first; the operator API follows as its own section.
  const tags = [...tagNames].sort(byAudience).map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operator API (ADMIN_TOKEN): ${name.replace(/^admin: /, '')}`,
  }));
  const schemes = { ...(doc.components?.securitySchemes ?? {}) };
  schemes.bearer = {
    type: 'oauth2',
    description:
      'Access token from the token endpoint (client credentials), sent as `Authorization: Bearer <token>`. In /docs, "Authorize" fetches one.',
    flows: {
      clientCredentials: {
        tokenUrl: '/api/auth/token',
        scopes: Object.fromEntries(SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]])),
      },
    },
  };
  return {
    ...openapiObject,
    servers: [{ url: '/', description: 'This server (the document is served by the API it describes)' }],
    tags,
    components: { ...(doc.components ?? {}), securitySchemes: schemes },
    webhooks: webhooks(),
  };
}

/** The integrator API's tags in reading order (token, data, webhooks, operations); every `admin: …` tag after them. */
const INTEGRATOR_TAGS = ['auth', 'offers', 'lml', 'subscriptions', 'operations'];
function byAudience(a: string, b: string): number {
  const rank = (tag: string): number => {
    const index = INTEGRATOR_TAGS.indexOf(tag);
    return index === -1 ? INTEGRATOR_TAGS.length : index;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

const SCOPE_DESCRIPTIONS: Readonly<Record<(typeof SCOPES)[number], string>> = {
  'offers:read': 'Read published offers',
  'lml:read': 'Read schools, lists and the structure tree',
  'webhooks:manage': 'Manage webhook subscriptions and the webhook secret',
};
