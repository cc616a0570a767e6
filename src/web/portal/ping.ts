/**
 * The test ping: one attempt, never retried. Its notice is its outcome — green only when the receiver
 * answered 2xx, red otherwise ("answered HTTP 500"), neutral while the answer is awaited — never a
 * "done" for a request that merely was queued.
 */
import type { SubscriptionView } from '../../subscriptions/schemas.js';
import { problemText } from '../common/api.js';
import { type Attempt, attemptResult, attemptSucceeded, failureText } from '../common/deliveries.js';
import { h, notice, sleep } from '../common/dom.js';
import { parts, t } from '../common/i18n.js';
import { ms, when } from '../common/time.js';
import { api } from './app.js';

/** How long the page waits for the ping's attempt before pointing to the delivery log. */
const WAIT_MS = 10_000;
const POLL_MS = 500;

export function pingNotice(url: string, attempt: Attempt): string {
  const took = ms(attempt.durationMs);
  if (attemptSucceeded(attempt)) return t('ping.succeeded', { url, status: String(attempt.statusCode), took });
  const answered = attempt.errorClass === 'http' || (attempt.errorClass === null && attempt.statusCode !== null);
  const why = answered
    ? t('ping.answered', { status: String(attempt.statusCode) })
    : failureText(attempt.errorClass, attempt.statusCode);
  return t('ping.failed', { url, why, took });
}

export async function ping(subscription: Pick<SubscriptionView, 'id' | 'notificationUrl'>, out: HTMLElement) {
  const url = subscription.notificationUrl;
  const sent = await api<{ deliveryId: string }>('POST', `/subscriptions/${encodeURIComponent(subscription.id)}/ping`);
  if (!sent.ok) {
    notice(t('ping.notSent', { problem: problemText(sent) }), 'error');
    return;
  }
  notice(t('ping.waiting', { url }), 'info');
  out.replaceChildren(h('div', { className: 'panel' }, t('ping.waiting', { url })));
  const id = encodeURIComponent(sent.data.deliveryId);
  for (let waited = 0; waited < WAIT_MS; waited += POLL_MS) {
    await sleep(POLL_MS);
    const detail = await api<{ attempts: Attempt[] }>('GET', `/deliveries/${id}`);
    const attempt = detail.ok ? detail.data.attempts.at(-1) : undefined;
    if (attempt === undefined) continue;
    notice(pingNotice(url, attempt), attemptSucceeded(attempt) ? 'ok' : 'error');
    out.replaceChildren(
      h('div', { className: 'panel' }, [
        h('strong', {}, t('ping.resultLead')),
        ...parts('ping.resultLine', {
          result: attemptResult(attempt),
          took: ms(attempt.durationMs),
          when: when(attempt.startedAt),
        }),
      ]),
    );
    return;
  }
  notice(t('ping.notYet'), 'info');
  out.replaceChildren(h('div', { className: 'panel' }, t('ping.notYet')));
}
