/**
 * Deliveries and their attempts, as both pages show them. Event labels are compiled in from the
 * server's event catalogue, so a new event needs no change here.
 */
import type { AttemptView, DeliveryView } from '../../delivery/schemas.js';
import { EVENT_LABELS } from '../../events/catalogue.js';
import { type Child, h } from './dom.js';
import { ms, nextAttempt, when } from './time.js';
import { badge, table } from './widgets.js';

/** A delivery as the API sends it (the server's schema is the one source of the shape). */
export type Delivery = DeliveryView;

export interface Attempt extends AttemptView {
  /** Portal only: the headers the request carried, signatures masked. */
  requestHeaders?: Record<string, string>;
}

export const eventName = (event: string): string => EVENT_LABELS[event] ?? event;

/** A pending delivery that was attempted already and waits for its next scheduled attempt. */
export const isScheduled = (delivery: Delivery): boolean =>
  delivery.status === 'pending' && delivery.attemptCount > 0 && delivery.nextAttemptAt !== null;

export function outcome(delivery: Delivery): HTMLElement {
  if (delivery.status === 'succeeded') return badge('delivered', 'succeeded');
  if (delivery.status === 'failed') {
    const code = delivery.lastStatusCode;
    const why = delivery.lastErrorClass
      ? ` (${delivery.lastErrorClass}${code ? ` ${code}` : ''})`
      : code
        ? ` (HTTP ${code})`
        : '';
    return badge(`failed${why}`, 'failed');
  }
  return badge(delivery.attemptCount > 0 ? 'retrying' : 'pending', 'pending');
}

/** The outcome plus, while it waits for a retry, "· next attempt in 4 s" (exact time on hover). */
export function outcomeWithNext(delivery: Delivery): Child {
  if (!isScheduled(delivery) || delivery.nextAttemptAt === null) return outcome(delivery);
  return [outcome(delivery), ' · ', nextAttempt(delivery.nextAttemptAt)];
}

export function attemptResult(attempt: Attempt): HTMLElement {
  if (attempt.errorClass === null && attempt.statusCode !== null && attempt.statusCode < 300)
    return badge(`HTTP ${attempt.statusCode}`, 'succeeded');
  const text = attempt.errorClass
    ? attempt.errorClass + (attempt.statusCode ? ` (HTTP ${attempt.statusCode})` : '')
    : `HTTP ${attempt.statusCode}`;
  return badge(text, 'failed');
}

export function attemptsTable(attempts: readonly Attempt[]): HTMLElement {
  const withHeaders = attempts[0]?.requestHeaders !== undefined;
  return table<Attempt>(
    attempts,
    [
      ['#', (a) => a.attemptNo],
      ['When', (a) => when(a.startedAt)],
      ['Duration', (a) => ms(a.durationMs)],
      ['Result', (a) => attemptResult(a)],
      [
        'Response',
        (a) =>
          a.responseBody ? h('code', { className: 'excerpt' }, a.responseBody.slice(0, 300)) : a.errorMessage || '—',
      ],
      ...(withHeaders
        ? ([
            [
              'Request headers',
              (a: Attempt) =>
                h(
                  'pre',
                  { className: 'headers' },
                  Object.entries(a.requestHeaders ?? {})
                    .map(([name, value]) => `${name}: ${value}`)
                    .join('\n'),
                ),
            ],
          ] as const)
        : []),
    ],
    'No attempt yet: the worker sends it within seconds.',
  );
}

/** The delivery-status filter both logs offer. */
export const STATUS_FILTER = [
  ['', 'any status'],
  ['pending', 'pending'],
  ['succeeded', 'delivered'],
  ['failed', 'failed'],
] as const;
