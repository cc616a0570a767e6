/**
 * The events a subscription can ask for. Names are accepted dotted (school.created, as the webhooks
 * page lists them) or hyphenated (list-published, as the subscription examples use), and stored dotted.
 */
export const EVENT_NAMES = [
  'school.created',
  'school.modified',
  'list.created',
  'list.updated',
  'list.status',
  'list.published',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export const ACCEPTED_EVENT_SPELLINGS: readonly string[] = EVENT_NAMES.flatMap((name) => [
  name,
  name.replace('.', '-'),
]);

/** The canonical dotted name for either spelling, or undefined for an unknown event. */
export function canonicalEvent(name: string): EventName | undefined {
  const dotted = name.trim().toLowerCase().replace('-', '.');
  return (EVENT_NAMES as readonly string[]).includes(dotted) ? (dotted as EventName) : undefined;
}

export type ResourceKind = 'school' | 'list';

/** One thing that happened, as the webhook payload will describe it. */
export interface DomainEvent {
  name: EventName;
  /** Payload `type`: what happened (created, modified, updated, or the new list status). */
  type: string;
  resource: ResourceKind;
  /** 32 lower-case hex characters. */
  identifier: string;
}

/** The exact bytes sent to receivers: {"type","resource","identifier"} in that order. */
export const webhookPayload = (event: Pick<DomainEvent, 'type' | 'resource' | 'identifier'>): string =>
  JSON.stringify({ type: event.type, resource: event.resource, identifier: event.identifier });
