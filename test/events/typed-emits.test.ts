/**
 * What the compiler refuses. `tsc -p tsconfig.json` (npm run typecheck) checks this file: each
 * `@ts-expect-error` line must fail to type-check, so a change that lets one of these emits through
 * (an unused directive is an error too) fails the build. The refused emits are thunks that never run;
 * vitest only checks that the accepted ones have the types the catalogue gives them.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DomainEvent, EventOf } from '../../src/events/catalogue.js';
import { events } from '../../src/events/emitters.js';
import type { Emit } from '../../src/events/outbox.js';

const id = 'a'.repeat(32);
const offer = { identifier: id, ean: '9789001891447' };
const accept = (event: DomainEvent): DomainEvent => event;

describe('typed emits', () => {
  it('an emitter returns its catalogue entry: the name, its type words, its resource, the EAN on offer events', () => {
    expectTypeOf(events.listPublished(id)).toEqualTypeOf<EventOf<'list.published'>>();
    expectTypeOf(events.listPublished(id).type).toEqualTypeOf<'published'>();
    expectTypeOf(events.listStatus(id, 'archived').type).toEqualTypeOf<
      'created' | 'validated' | 'published' | 'archived'
    >();
    expectTypeOf(events.schoolModified(id).resource).toEqualTypeOf<'school'>();
    expectTypeOf(events.offerStatus(offer, 'sold').type).toEqualTypeOf<
      'published' | 'reserved' | 'sold' | 'withdrawn'
    >();
    expectTypeOf(events.offerUpdated(offer).ean).toEqualTypeOf<string>();
    expectTypeOf(events.subscriptionFailing('sub_x').resource).toEqualTypeOf<'subscription'>();
    expectTypeOf(events.listCreated(id).ean).toEqualTypeOf<undefined>();
    expectTypeOf<Parameters<Emit>[0]>().toEqualTypeOf<DomainEvent>();
  });

  it('refuses a wrong name, a type word or resource the catalogue does not list, and an offer event without its EAN', () => {
    const refused = [
      // @ts-expect-error: no event is called list.publishd
      () => events.listPublishd(id),
      // @ts-expect-error: emitters are named in camelCase, not by the dotted name
      () => events['list.published'](id),
      // @ts-expect-error: deleted is not a list status
      () => events.listStatus(id, 'deleted'),
      // @ts-expect-error: list.status has several type words, so it needs one
      () => events.listStatus(id),
      // @ts-expect-error: list.published has one type word, so it takes none
      () => events.listPublished(id, 'published'),
      // @ts-expect-error: draft is never announced as offer.status
      () => events.offerStatus(offer, 'draft'),
      // @ts-expect-error: an offer event takes the offer (identifier and EAN), not only its identifier
      () => events.offerUpdated(id),
      // @ts-expect-error: an offer event without its EAN
      () => events.offerPublished({ identifier: id }),
      // @ts-expect-error: a school event takes an identifier, not an offer
      () => events.schoolCreated(offer),
      // @ts-expect-error: no event is called list.deleted
      () => accept({ name: 'list.deleted', type: 'deleted', resource: 'list', identifier: id }),
      // @ts-expect-error: list.published is about a list, not a school
      () => accept({ name: 'list.published', type: 'published', resource: 'school', identifier: id }),
      // @ts-expect-error: archived is a type word of list.status, not of list.published
      () => accept({ name: 'list.published', type: 'archived', resource: 'list', identifier: id }),
      // @ts-expect-error: offer.updated without the EAN the subscription filters match on
      () => accept({ name: 'offer.updated', type: 'updated', resource: 'offer', identifier: id }),
      // @ts-expect-error: only offer events carry an EAN
      () => accept({ name: 'list.updated', type: 'updated', resource: 'list', identifier: id, ean: offer.ean }),
    ];
    expect(refused).toHaveLength(14);
  });
});
