/**
 * One emitter per catalogue entry, generated from `EVENTS` (names, arguments and results alike), so a
 * service never spells an event's name, type word or resource by hand:
 *
 *   emit(events.listPublished(list.identifier));
 *   emit(events.listStatus(list.identifier, 'archived'));   // an event with several type words takes one
 *   emit(events.offerUpdated(offer));                        // offer events take { identifier, ean }
 *
 * The emitter of `list.status` is `listStatus`: the dotted name in camelCase. Its result is the
 * catalogue's `EventOf<N>`, which the outbox's `emit` accepts.
 */
import { type CarriesEan, EVENT_NAMES, EVENTS, type EventName, type EventOf, type EventType } from './catalogue.js';

/** `list.status` → `listStatus`. */
export type EmitterName<N extends string> = N extends `${infer Head}.${infer Tail}`
  ? `${Head}${Capitalize<EmitterName<Tail>>}`
  : N;

/** What an offer event names: the offer, by identifier, and its EAN for the subscription filters. */
export interface OfferSubject {
  readonly identifier: string;
  readonly ean: string;
}

/** The identifier of the resource, or the offer (identifier and EAN) for offer events. */
type Subject<N extends EventName> = CarriesEan<N> extends true ? OfferSubject : string;

/** An event with one type word needs none; one with several takes the word as its second argument. */
type EmitterArguments<N extends EventName> = (typeof EVENTS)[N]['types'] extends readonly [string]
  ? [subject: Subject<N>]
  : [subject: Subject<N>, type: EventType<N>];

export type Emitters = { readonly [N in EventName as EmitterName<N>]: (...args: EmitterArguments<N>) => EventOf<N> };

export const emitterName = (name: EventName): string =>
  name.replace(/\.(\w)/g, (_dot, letter: string) => letter.toUpperCase());

/**
 * The runtime half of one emitter. The types already rule out a wrong word or a missing EAN; the checks
 * here stop a value that slipped past them (a cast, a stored string) before it reaches a receiver.
 */
function emitter(name: EventName) {
  const { resource } = EVENTS[name];
  const types: readonly string[] = EVENTS[name].types;
  const carriesEan = resource === 'offer';
  return (subject: string | OfferSubject, type: string | undefined = types.length === 1 ? types[0] : undefined) => {
    if (type === undefined || !types.includes(type)) throw new Error(`${name} has no type ${String(type)}`);
    if (typeof subject === 'string') {
      if (carriesEan) throw new Error(`${name} needs the offer's EAN`);
      return { name, type, resource, identifier: subject };
    }
    if (!carriesEan) throw new Error(`${name} takes an identifier, not an offer`);
    return { name, type, resource, identifier: subject.identifier, ean: subject.ean };
  };
}

export const events = Object.freeze(
  Object.fromEntries(EVENT_NAMES.map((name) => [emitterName(name), emitter(name)])),
) as Emitters;
