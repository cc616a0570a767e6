/**
 * English words of the domain as people see them: problem codes, events, states, roles and offer
 * conditions. Each is keyed by the set it names (the error catalogue, the event catalogue, the state
 * labels), so the compiler holds the Dutch words to the same sets; the English ones are the sources' own.
 */

import { EVENT_LABELS, type EventName } from '../../events/catalogue.js';
import type { OfferCondition } from '../../offers/model.js';
import { PROBLEMS, type ProblemCode } from '../../problems/catalogue.js';
import type { Role } from '../../vocabulary/actor.js';

export type Words<K extends string> = { readonly [key in K]: string };

export const problems = Object.fromEntries(
  Object.entries(PROBLEMS).map(([code, { title }]) => [code, title]),
) as Words<ProblemCode>;

export const events = EVENT_LABELS as Words<EventName | 'ping'>;

export const roles: Words<Role> = { viewer: 'viewer', support: 'support', admin: 'admin' };

export const conditions: Words<OfferCondition> = { excellent: 'excellent', good: 'good', acceptable: 'acceptable' };

/** The API's field names as a refusal's field is named on the pages. */
export const fields = {
  notificationUrl: 'Receiver URL',
  event: 'Event',
  eans: 'EANs',
  list: 'List',
  name: 'Name',
  ean: 'EAN',
  price: 'Price',
  title: 'Title',
  items: 'Items',
} as const;
