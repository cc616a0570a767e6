/**
 * The emitters generated from the catalogue: one per entry, named in camelCase, each building exactly
 * the event and payload its entry describes, for every type word; and the runtime checks behind the types.
 */
import { describe, expect, it } from 'vitest';
import { type DomainEvent, EVENT_NAMES, EVENTS, type EventName, webhookPayload } from '../../src/events/catalogue.js';
import { emitterName, events, type OfferSubject } from '../../src/events/emitters.js';

const id = 'c'.repeat(32);
const ean = '9789001891447';

/** An emitter seen without its per-event types, so every entry can be driven alike. */
type LooseEmitter = (subject: string | OfferSubject, type?: string) => DomainEvent;
const emitterOf = (name: EventName): LooseEmitter => {
  const emitter: unknown = (events as Readonly<Record<string, unknown>>)[emitterName(name)];
  if (typeof emitter !== 'function') throw new Error(`no emitter for ${name}`);
  return emitter as LooseEmitter;
};

describe('event emitters', () => {
  it('are exactly one per catalogue entry, named in camelCase', () => {
    expect(Object.keys(events).sort()).toEqual(
      [
        'listCreated',
        'listPublished',
        'listStatus',
        'listUpdated',
        'offerPublished',
        'offerStatus',
        'offerUpdated',
        'schoolCreated',
        'schoolModified',
        'subscriptionDisabled',
        'subscriptionFailing',
      ].sort(),
    );
    expect(Object.keys(events).sort()).toEqual(EVENT_NAMES.map(emitterName).sort());
    expect(Object.isFrozen(events)).toBe(true);
  });

  it.each(EVENT_NAMES)('%s builds the payload its entry says, for each of its type words', (name) => {
    const { resource, types } = EVENTS[name];
    const emit = emitterOf(name);
    for (const type of types) {
      const offer = resource === 'offer';
      const event = offer ? emit({ identifier: id, ean }, type) : emit(id, types.length > 1 ? type : undefined);
      expect(event).toEqual(
        offer ? { name, type, resource, identifier: id, ean } : { name, type, resource, identifier: id },
      );
      expect(Object.keys(event)).toEqual(['name', 'type', 'resource', 'identifier', ...(offer ? ['ean'] : [])]);
      // The EAN is for the subscription filters, never part of what receivers get.
      expect(webhookPayload(event)).toBe(JSON.stringify({ type, resource, identifier: id }));
    }
  });

  it('takes only the identifier and EAN of the offer it is given', () => {
    const row = { identifier: id, ean, status: 'published', price_cents: 950 };
    expect(events.offerUpdated(row)).toEqual({
      name: 'offer.updated',
      type: 'updated',
      resource: 'offer',
      identifier: id,
      ean,
    });
  });

  it('refuses at run time what the types refuse, should a value slip past them', () => {
    expect(() => emitterOf('list.status')(id, 'deleted')).toThrow('list.status has no type deleted');
    expect(() => emitterOf('list.status')(id)).toThrow('list.status has no type undefined');
    expect(() => emitterOf('list.published')(id, 'archived')).toThrow('list.published has no type archived');
    expect(() => emitterOf('offer.updated')(id)).toThrow("offer.updated needs the offer's EAN");
    expect(() => emitterOf('school.created')({ identifier: id, ean })).toThrow(
      'school.created takes an identifier, not an offer',
    );
  });
});
