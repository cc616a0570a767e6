/**
 * The test ping: one attempt, never retried. Its notice is its outcome — green only when the receiver
 * answered 2xx, red otherwise ("answered HTTP 500"), neutral while the answer is awaited — never a
 * "done" for a request that merely was queued.
 */
import type { SubscriptionView } from '../../subscriptions/schemas.js';
import { problemText } from '../common/api.js';
import { type Attempt, attemptResult, attemptSucceeded, failureText } from '../common/deliveries.js';
import { h, notice, sleep } from '../common/dom.js';
import { ms, when } from '../common/time.js';
import { api } from './app.js';

/** How long the page waits for the ping's attempt before pointing to the delivery log. */
const WAIT_MS = 10_000;
const POLL_MS = 500;

export function pingNotice(url: string, attempt: Attempt): string {
  const took = ms(attempt.durationMs);
  if (attemptSucceeded(attempt))
    return `Test ping to ${url} succeeded: the receiver answered HTTP ${attempt.statusCode} in ${took}.`;
  const answered = attempt.errorClass === 'http' || (attempt.errorClass === null && attempt.statusCode !== null);
  const why = answered
    ? `the receiver answered HTTP ${attempt.statusCode}`
    : failureText(attempt.errorClass, attempt.statusCode);
  return `Test ping to ${url} failed: ${why} after ${took}. A ping succeeds only on a 2xx answer.`;
}

export async function ping(subscription: Pick<SubscriptionView, 'id' | 'notificationUrl'>, out: HTMLElement) {
  const url = subscription.notificationUrl;
  const sent = await api<{ deliveryId: string }>('POST', `/subscriptions/${encodeURIComponent(subscription.id)}/ping`);
  if (!sent.ok) {
    notice(`Test ping not sent: ${problemText(sent)}`, 'error');
    return;
  }
  notice(`Test ping sent to ${url}; waiting for the answer…`, 'info');
  out.replaceChildren(h('div', { className: 'panel' }, `Test ping sent to ${url}; waiting for the answer…`));
  const id = encodeURIComponent(sent.data.deliveryId);
  for (let waited = 0; waited < WAIT_MS; waited += POLL_MS) {
    await sleep(POLL_MS);
    const detail = await api<{ attempts: Attempt[] }>('GET', `/deliveries/${id}`);
    const attempt = detail.ok ? detail.data.attempts.at(-1) : undefined;
    if (attempt === undefined) continue;
    notice(pingNotice(url, attempt), attemptSucceeded(attempt) ? 'ok' : 'error');
    out.replaceChildren(
      h('div', { className: 'panel' }, [
        h('strong', {}, 'Test ping result: '),
        attemptResult(attempt),
        ' in ',
        ms(attempt.durationMs),
        ' · ',
        when(attempt.startedAt),
      ]),
    );
    return;
  }
  notice('The test ping has not been attempted yet; see Deliveries for its result.', 'info');
  out.replaceChildren(
    h('div', { className: 'panel' }, 'The test ping has not been attempted yet; see Deliveries for its result.'),
  );
}
