/**
 * The document-level parts of the OpenAPI document, applied when it is built: servers, license, tags,
 * the oauth2 client-credentials scheme ("Try it" in /docs fetches its own token) and the 3.1
 * `webhooks`. Each route's own part comes from its declarations (operations.ts).
 */

import { SCOPES } from '../auth/scopes.js';
import { TOKEN_AUDIENCE } from '../auth/token-service.js';
import { EVENT_NAMES, EVENTS, type EventName } from '../events/catalogue.js';
import { addExamples } from './examples.js';

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
    name: 'x-hook-event-id',
    in: 'header',
    required: true,
    description:
      'The event id: the same on every delivery of this event (to each of your subscriptions, on every retry) and as `id` in GET /api/lml/v1/events. De-duplicate push and pull on it',
    schema: { type: 'string' },
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
  components?: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, Record<string, unknown>> };
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
  addExamples(doc.paths ?? {}, doc.components?.schemas ?? {});
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
