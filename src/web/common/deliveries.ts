/**
 * Deliveries and their attempts, as both pages show them. Event labels are compiled in from the
 * server's event catalogue, so a new event needs no change here.
 */
import type { AttemptView, DeliveryView } from '../../delivery/schemas.js';
import { EVENT_LABELS } from '../../events/catalogue.js';
import { type Child, h } from './dom.js';
import { type MessageKey, t, word } from './i18n.js';
import { stateOptions, stateText } from './states.js';
import { ms, nextAttempt, when } from './time.js';
import { badge, type Column, table } from './widgets.js';

/** A delivery as the API sends it (the server's schema is the one source of the shape). */
export type Delivery = DeliveryView;

/** An attempt with the request it sent: every header (signatures masked) and the body. */
export type Attempt = AttemptView;

export const eventName = (event: string): string => word('events', event, EVENT_LABELS[event] ?? event);

/** A pending delivery that was attempted already and waits for its next scheduled attempt. */
export const isScheduled = (delivery: Delivery): boolean =>
  delivery.status === 'pending' && delivery.attemptCount > 0 && delivery.nextAttemptAt !== null;

/**
 * Why an attempt or a delivery failed, in words: "HTTP 500" for an answer that was not 2xx, else what
 * went wrong on the way ("timed out", "connection refused", …).
 */
export function failureText(errorClass: string | null, statusCode: number | null): string {
  if (errorClass === null || errorClass === 'http')
    return statusCode === null ? t('failure.noAnswer') : `HTTP ${statusCode}`;
  const key = FAILURE_WORDS[errorClass];
  const what = key === undefined ? errorClass : t(key);
  return statusCode === null ? what : `${what}, HTTP ${statusCode}`;
}

const FAILURE_WORDS: Readonly<Record<string, MessageKey>> = {
  timeout: 'failure.timeout',
  dns: 'failure.dns',
  connect: 'failure.connect',
  tls: 'failure.tls',
  blocked: 'failure.blocked',
};

/** The delivery's state in the API's word with its label: "succeeded · delivered", "failed · not delivered (HTTP 500)". */
export function outcomeText(delivery: Delivery): string {
  if (delivery.status === 'failed')
    return `${stateText('delivery', 'failed')} (${failureText(delivery.lastErrorClass, delivery.lastStatusCode)})`;
  if (delivery.status === 'pending' && delivery.attemptCount > 0) return stateText('retrying', 'pending');
  return stateText('delivery', delivery.status);
}

export function outcome(delivery: Delivery): HTMLElement {
  const node = badge(outcomeText(delivery), delivery.status);
  node.dataset.state = delivery.status;
  return node;
}

/** The outcome plus, while it waits for a retry, "· next attempt in 4 s" (exact time on hover). */
export function outcomeWithNext(delivery: Delivery): Child {
  if (!isScheduled(delivery) || delivery.nextAttemptAt === null) return outcome(delivery);
  return [outcome(delivery), ' · ', nextAttempt(delivery.nextAttemptAt)];
}

/** An attempt succeeded only on a 2xx answer. */
export const attemptSucceeded = (attempt: AttemptView): boolean =>
  attempt.errorClass === null && attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;

/** "succeeded · HTTP 200" or "failed · HTTP 500", "failed · timed out". */
export function attemptText(attempt: AttemptView): string {
  return attemptSucceeded(attempt)
    ? t('attempt.succeeded', { status: String(attempt.statusCode) })
    : t('attempt.failed', { why: failureText(attempt.errorClass, attempt.statusCode) });
}

export function attemptResult(attempt: AttemptView): HTMLElement {
  const word = attemptSucceeded(attempt) ? 'succeeded' : 'failed';
  const node = badge(attemptText(attempt), word);
  node.dataset.state = word;
  return node;
}

/** What an attempt sent: its headers (signatures masked) and its body. */
function requestOf(attempt: Attempt): Child {
  const headers = Object.entries(attempt.requestHeaders).map(([name, value]) => `${name}: ${value}`);
  return [
    h('pre', { className: 'headers' }, headers.join('\n')),
    h('pre', { className: 'request-body' }, attempt.requestBody),
  ];
}

/** The attempts of one delivery, each with the request it sent (the console's and the portal's detail alike). */
export function attemptsTable(attempts: readonly Attempt[]): HTMLElement {
  const request: Column<Attempt>[] = [[t('attempt.request'), requestOf, 'request']];
  return table<Attempt>(
    attempts,
    [
      ['#', (a) => a.attemptNo],
      [t('attempt.when'), (a) => when(a.startedAt)],
      [t('attempt.duration'), (a) => ms(a.durationMs)],
      [t('attempt.result'), (a) => attemptResult(a)],
      [
        t('attempt.response'),
        (a) =>
          a.responseBody ? h('code', { className: 'excerpt' }, a.responseBody.slice(0, 300)) : a.errorMessage || '—',
      ],
      ...request,
    ],
    t('attempt.none'),
  );
}

/** The delivery-status filter both logs offer: the API's words, each with its label. */
export const STATUS_FILTER = stateOptions('delivery', t('delivery.anyStatus'));
