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

/** Stable ids, chosen by hand: renaming one renames an SDK method. New routes get a derived id until listed. */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  'GET /metrics': 'getMetrics',
  'GET /problems/:code': 'getProblemType',
  'GET /api/auth/token': 'getToken',
  'POST /api/auth/token': 'createToken',
  'GET /.well-known/jwks.json': 'getJwks',
  'GET /.well-known/oauth-authorization-server': 'getAuthorizationServerMetadata',
  'GET /api/v1/offers': 'listOffers',
  'GET /api/v1/offers/:id': 'getOffer',
  'GET /api/lml/v1/schools': 'listSchools',
  'GET /api/lml/v1/schools/:identifier': 'getSchool',
  'GET /api/lml/v1/lists': 'listLists',
  'GET /api/lml/v1/lists/:identifier': 'getList',
  'GET /api/lml/v1/structure': 'getStructure',
  'GET /api/lml/v1/subscriptions/:id/deliveries': 'listSubscriptionDeliveries',
  'POST /api/lml/v1/subscriptions/:id/ping': 'pingSubscription',
  'POST /api/lml/v1/subscriptions': 'createSubscription',
  'GET /api/lml/v1/subscriptions': 'listSubscriptions',
  'GET /api/lml/v1/subscriptions/:id': 'getSubscription',
  'DELETE /api/lml/v1/subscriptions/:id': 'deleteSubscription',
  'POST /api/lml/v1/subscriptions/:id/enable': 'enableSubscription',
  'POST /api/lml/v1/webhook-secret': 'rotateWebhookSecret',
  'POST /api/admin/v1/clients': 'adminCreateClient',
  'GET /api/admin/v1/clients': 'adminListClients',
  'GET /api/admin/v1/clients/:id': 'adminGetClient',
  'DELETE /api/admin/v1/clients/:id': 'adminRevokeClient',
  'POST /api/admin/v1/clients/:id/secret': 'adminResetClientSecret',
  'POST /api/admin/v1/clients/:id/webhook-secret': 'adminRotateClientWebhookSecret',
  'GET /api/admin/v1/deliveries': 'adminListDeliveries',
  'GET /api/admin/v1/deliveries/:id': 'adminGetDelivery',
  'POST /api/admin/v1/deliveries/:id/retry': 'adminRetryDelivery',
  'POST /api/admin/v1/subscriptions/:id/recover': 'adminRecoverSubscription',
  'GET /api/admin/v1/schools': 'adminListSchools',
  'POST /api/admin/v1/schools': 'adminCreateSchool',
  'GET /api/admin/v1/schools/:identifier': 'adminGetSchool',
  'PATCH /api/admin/v1/schools/:identifier': 'adminUpdateSchool',
  'GET /api/admin/v1/lists': 'adminListLists',
  'POST /api/admin/v1/lists': 'adminCreateList',
  'GET /api/admin/v1/lists/:identifier': 'adminGetList',
  'PATCH /api/admin/v1/lists/:identifier': 'adminUpdateList',
  'POST /api/admin/v1/lists/:identifier/status': 'adminSetListStatus',
  'POST /api/admin/v1/offers': 'adminCreateOffer',
  'GET /api/admin/v1/offers': 'adminListOffers',
  'GET /api/admin/v1/offers/:id': 'adminGetOffer',
  'PATCH /api/admin/v1/offers/:id': 'adminUpdateOffer',
  'DELETE /api/admin/v1/offers/:id': 'adminDeleteOffer',
  'GET /api/admin/v1/subscriptions': 'adminListSubscriptions',
  'GET /api/admin/v1/subscriptions/:id': 'adminGetSubscription',
  'POST /api/admin/v1/subscriptions/:id/enable': 'adminEnableSubscription',
};

const VERBS: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'replace', PATCH: 'update', DELETE: 'delete' };

/** `POST /api/admin/v1/foo-bars/:id/baz` → `createAdminFooBarsBaz`: deterministic for routes not listed yet. */
export function operationIdFor(method: string, url: string): string {
  const listed = OPERATION_IDS[`${method} ${url}`];
  if (listed !== undefined) return listed;
  const words = url
    .split('/')
    .filter((part) => part !== '' && !part.startsWith(':') && !/^(api|v\d+)$/.test(part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter((word) => word !== '');
  return (VERBS[method] ?? method.toLowerCase()) + words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

/** Statuses a route's service really answers beyond those of its inputs and guard (see the services). */
const ROUTE_PROBLEMS: Readonly<Record<string, ProblemCode[]>> = {
  'POST /api/lml/v1/subscriptions': ['blocked-address', 'unresolvable-host'],
  'POST /api/lml/v1/subscriptions/:id/ping': ['conflict'],
  'POST /api/admin/v1/deliveries/:id/retry': ['conflict'],
  'POST /api/admin/v1/lists': ['invalid-ean', 'conflict'],
  'PATCH /api/admin/v1/lists/:identifier': ['invalid-ean'],
  'POST /api/admin/v1/lists/:identifier/status': ['illegal-transition', 'conflict'],
  'POST /api/admin/v1/offers': ['invalid-ean'],
};

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
  for (const code of ROUTE_PROBLEMS[`${method} ${url}`] ?? []) add(code);
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
  if (url === '/problems/:code' && responses['200'] === undefined) {
    responses['200'] = {
      description: 'A page explaining the problem type',
      content: { 'text/html': { schema: { type: 'string' } } },
    };
  }
  if (url === '/metrics' && responses['200'] === undefined) {
    responses['200'] = {
      description: 'Prometheus text exposition format 0.0.4',
      content: { 'text/plain': { schema: { type: 'string' } } },
    };
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

  return {
    ...schema,
    ...withHeaders,
    ...security,
    operationId: operationIdFor(method, url),
    response: responses,
  } as FastifySchema;
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
    const { resource } = EVENTS[event];
    out[event] = {
      post: {
        operationId: `on${event
          .split('.')
          .map((part) => part[0]?.toUpperCase() + part.slice(1))
          .join('')}`,
        tags: ['lml'],
        summary: `${event}: sent to subscriptions for this event`,
        description:
          'A POST to your notificationUrl with exactly these bytes. Fetch the resource by its identifier (GET /api/lml/v1/' +
          `${resource}s/{identifier}). Answer 2xx within WEBHOOK_TIMEOUT_MS; anything else is retried on the retry schedule.`,
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
                  identifier: { type: 'string', pattern: '^[0-9a-f]{32}$' },
                },
              },
              example: { type: EVENTS[event].types[0], resource, identifier: '0f3c2a9be1d84c6f9a0b7c1d2e3f4a5b' },
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
  const tags = [...tagNames].sort().map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operator API (ADMIN_TOKEN): ${name.replace(/^admin: /, '')}`,
  }));
  const schemes = { ...(doc.components?.securitySchemes ?? {}) };
  schemes.bearer = {
    type: 'oauth2',
    description:
      'Access token from the token endpoint (client credentials), sent as Authorization: Bearer <token>. In /docs, "Authorize" fetches one.',
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

const SCOPE_DESCRIPTIONS: Readonly<Record<(typeof SCOPES)[number], string>> = {
  'offers:read': 'Read published offers',
  'lml:read': 'Read schools, lists and the structure tree',
  'webhooks:manage': 'Manage webhook subscriptions and the webhook secret',
};
