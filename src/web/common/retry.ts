/**
 * Retry, for the console and the portal alike: one control that knows what a delivery in
 * each state allows. A finished delivery is sent once more (…/retry); one waiting for its next
 * scheduled attempt is sent now instead (…/send-now), same webhook-id. When neither is possible the
 * button is disabled and the reason is written beside it (and tied to it for screen readers), never
 * a greyed button alone.
 */
import { type Delivery, failureText, outcomeText } from './deliveries.js';
import { h, type NoticeKind } from './dom.js';
import { t } from './i18n.js';
import { countdown, isDue } from './time.js';

export type RetryAction = 'retry' | 'send-now';

/** What the control offers for a delivery: the action, or why there is none. */
export type RetryChoice = { action: RetryAction; label: string } | { action: null; label: string; reason: string };

export interface RetryContext {
  /** The delivery's subscription is disabled: nothing is sent to it until it is re-enabled. */
  subscriptionDisabled?: boolean;
}

export function retryChoice(d: Delivery, context: RetryContext = {}): RetryChoice {
  if (context.subscriptionDisabled)
    return {
      action: null,
      label: d.status === 'pending' ? t('retry.now') : t('retry.retry'),
      reason: t('retry.disabledSubscription'),
    };
  if (d.status !== 'pending') return { action: 'retry', label: t('retry.retry') };
  if (d.attemptCount === 0) return { action: null, label: t('retry.now'), reason: t('retry.firstUnderWay') };
  if (d.nextAttemptAt === null || isDue(d.nextAttemptAt))
    return { action: null, label: t('retry.now'), reason: t('retry.nextUnderWay') };
  return { action: 'send-now', label: t('retry.now') };
}

let reasons = 0;

/**
 * The button (and its reason when disabled). `run` performs the action through the page's own API and
 * redraws; the button stays disabled while it runs, so a double click sends once.
 */
export function retryControl(
  d: Delivery,
  run: (action: RetryAction) => Promise<unknown>,
  context: RetryContext = {},
): HTMLElement {
  const choice = retryChoice(d, context);
  if (choice.action === null) {
    const id = `retry-reason-${++reasons}`;
    return h('span', { className: 'retry' }, [
      h(
        'button',
        { type: 'button', className: 'secondary', disabled: true, 'aria-describedby': id, title: choice.reason },
        choice.label,
      ),
      h('span', { className: 'reason muted', id }, choice.reason),
    ]);
  }
  const action = choice.action;
  const button = h('button', { type: 'button', className: 'secondary' }, choice.label);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await run(action);
    } finally {
      button.disabled = false;
    }
  });
  return h('span', { className: 'retry' }, button);
}

/**
 * What the notice bar says after the action, from the delivery the API answered with, never a bare
 * "done": Retry queues the delivery (the worker sends it within seconds); Retry now has already sent
 * it, and says how that attempt went and that the automatic schedule stays where it was.
 */
export function retryReport(action: RetryAction, d: Delivery): { text: string; kind: NoticeKind } {
  if (action === 'retry') return { text: t('retry.queued'), kind: 'info' };
  if (d.status === 'succeeded')
    return { text: t('retry.nowSucceeded', { outcome: outcomeText(d), status: String(d.lastStatusCode) }), kind: 'ok' };
  const why = failureText(d.lastErrorClass, d.lastStatusCode);
  const next = d.nextAttemptAt === null ? '' : t('retry.nextStays', { due: countdown(d.nextAttemptAt) });
  return { text: t('retry.nowFailed', { why }) + next, kind: 'error' };
}
