/**
 * The events a subscription can ask for: the one list every other part derives from (subscription
 * validation, the OpenAPI `webhooks` section, the console's and portal's labels, the SDK's event type,
 * the `DomainEvent` union below and the emitters of emitters.ts). Adding an event is one entry here plus
 * the service that calls its generated emitter; the compiler finds the rest: an emit of an unknown
 * event, a type word or resource the entry does not list, or an offer event without its EAN fails `tsc`.
 *
 * Names are accepted dotted (school.created, as the webhooks page lists them) or hyphenated
 * (list-published, as the subscription examples use), and stored dotted.
 */
import { LIST_STATUSES } from '../vocabulary/list-statuses.js';

/** The statuses `offer.status` announces: every status but draft (a draft was never anybody's business). */
const OFFER_EVENT_STATUSES = ['published', 'reserved', 'sold', 'withdrawn'] as const;

export interface EventDefinition {
  /** Payload `resource`: the kind of thing the identifier names. */
  readonly resource: 'school' | 'list' | 'offer' | 'subscription';
  /** Every payload `type` this event can carry. */
  readonly types: readonly string[];
  /** A short human label (console, portal). */
  readonly label: string;
  /** When it is sent, in one sentence (OpenAPI, docs). */
  readonly description: string;
  /** The read endpoint that answers for the identifier. */
  readonly fetch: string;
}

export const EVENTS = {
  'school.created': {
    resource: 'school',
    types: ['created'],
    label: 'School created',
    description: 'A school was created.',
    fetch: '/api/lml/v1/schools/{identifier}',
  },
  'school.modified': {
    resource: 'school',
    types: ['modified'],
    label: 'School changed',
    description: "A school's name, type or location changed.",
    fetch: '/api/lml/v1/schools/{identifier}',
  },
  'list.created': {
    resource: 'list',
    types: ['created'],
    label: 'List created',
    description: 'A list was created.',
    fetch: '/api/lml/v1/lists/{identifier}',
  },
  'list.updated': {
    resource: 'list',
    types: ['updated'],
    label: 'List updated',
    description: "A list's name, year, grade or items changed.",
    fetch: '/api/lml/v1/lists/{identifier}',
  },
  'list.status': {
    resource: 'list',
    types: LIST_STATUSES,
    label: 'List status changed',
    description: 'A list moved to another status; `type` is the new status.',
    fetch: '/api/lml/v1/lists/{identifier}',
  },
  'list.published': {
    resource: 'list',
    types: ['published'],
    label: 'List published',
    description: 'A list became published (also announced as list.status).',
    fetch: '/api/lml/v1/lists/{identifier}',
  },
  'offer.published': {
    resource: 'offer',
    types: ['published'],
    label: 'Offer published',
    description: 'An offer became published (also announced as offer.status). Subscriptions may filter by EAN or list.',
    fetch: '/api/v1/offers/{identifier}',
  },
  'offer.updated': {
    resource: 'offer',
    types: ['updated'],
    label: 'Offer updated',
    description: "A published offer's price, condition or remarks changed. Subscriptions may filter by EAN or list.",
    fetch: '/api/v1/offers/{identifier}',
  },
  'offer.status': {
    resource: 'offer',
    types: OFFER_EVENT_STATUSES,
    label: 'Offer status changed',
    description:
      'An offer that is or was published moved to another status (or was deleted: withdrawn); `type` is the new status. Subscriptions may filter by EAN or list.',
    fetch: '/api/v1/offers/{identifier}',
  },
  // Sent only to the same client's other subscriptions to these events, never to the one it names.
  'subscription.failing': {
    resource: 'subscription',
    types: ['failing'],
    label: 'Subscription failing',
    description:
      'Every delivery attempt to another of your subscriptions has failed for SUBSCRIPTION_FAILING_AFTER_SECONDS (once per failing period).',
    fetch: '/api/lml/v1/subscriptions/{identifier}',
  },
  'subscription.disabled': {
    resource: 'subscription',
    types: ['disabled'],
    label: 'Subscription disabled',
    description:
      'Another of your subscriptions was disabled (5 days of failures, or its receiver answered 410 Gone); its `disabledReason` says which.',
    fetch: '/api/lml/v1/subscriptions/{identifier}',
  },
} as const satisfies Readonly<Record<string, EventDefinition>>;

export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];

/** The test ping is not an event anyone subscribes to, but deliveries show it; its label lives here too. */
export const PING_LABEL = 'Test ping';

/** Labels for every event name a delivery can carry (the pages show these). */
export const EVENT_LABELS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(EVENT_NAMES.map((name) => [name, EVENTS[name].label])),
  ping: PING_LABEL,
};

export const ACCEPTED_EVENT_SPELLINGS: readonly string[] = EVENT_NAMES.flatMap((name) => [
  name,
  name.replace('.', '-'),
]);

/** The canonical dotted name for either spelling, or undefined for an unknown event. */
export function canonicalEvent(name: string): EventName | undefined {
  const dotted = name.trim().toLowerCase().replace('-', '.');
  return Object.hasOwn(EVENTS, dotted) ? (dotted as EventName) : undefined;
}

export type ResourceKind = EventDefinition['resource'];

type Catalogue = typeof EVENTS;

/** The payload `type` words event N may carry, e.g. every list status for list.status. */
export type EventType<N extends EventName> = Catalogue[N]['types'][number];

/** Offer events carry the offer's EAN, which subscription filters match on (fan-out.ts); other events none. */
export type CarriesEan<N extends EventName> = Catalogue[N]['resource'] extends 'offer' ? true : false;

/** Event N as a service emits it: its name, one of its type words, its resource, and the EAN when it needs one. */
export type EventOf<N extends EventName> = {
  readonly name: N;
  /** Payload `type`: what happened (created, modified, updated, published, or the new list or offer status). */
  readonly type: EventType<N>;
  readonly resource: Catalogue[N]['resource'];
  /** 32 lower-case hex characters (a school, list or offer), or a subscription's id (`sub_…`). */
  readonly identifier: string;
} & (CarriesEan<N> extends true
  ? /** The offer's EAN, which subscription filters match on (not part of the payload). */
    { readonly ean: string }
  : { readonly ean?: undefined });

/** One thing that happened, as the webhook payload will describe it: one member per catalogue entry. */
export type DomainEvent = { [N in EventName]: EventOf<N> }[EventName];

/** The exact bytes sent to receivers: {"type","resource","identifier"} in that order. */
export const webhookPayload = (event: Pick<DomainEvent, 'type' | 'resource' | 'identifier'>): string =>
  JSON.stringify({ type: event.type, resource: event.resource, identifier: event.identifier });
