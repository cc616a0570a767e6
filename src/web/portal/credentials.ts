/**
 * The client's credentials: its id, status, and the two secret actions. Each new secret appears
 * right under the button that made it, and a reset refreshes the "tokens minted before" line. The
 * webhook secret is never shown again after it was issued, so the page says where it went.
 */
import { h } from '../common/dom.js';
import { parts, t } from '../common/i18n.js';
import { stateBadge } from '../common/states.js';
import { untilText, when } from '../common/time.js';
import { confirmThen, secretBox } from '../common/widgets.js';
import { act, refreshMe, state } from './app.js';

/** A new client's cut-off is its creation time: its secret was never reset, so no token is refused for age. */
function tokensLine(): HTMLElement {
  const me = state.me;
  const cutOff = me?.tokensValidAfter;
  const neverReset = me === null || cutOff === undefined || Date.parse(cutOff) <= Date.parse(me.createdAt);
  if (neverReset) return h('p', { className: 'muted', id: 'tokens-valid-after' }, t('cred.neverReset'));
  return h('p', { className: 'muted', id: 'tokens-valid-after' }, parts('cred.lastReset', { when: when(cutOff) }));
}

export async function credentials(root: HTMLElement): Promise<void> {
  const me = state.me;
  if (me === null) return;
  root.append(h('h1', {}, t('cred.title')));
  let tokens = tokensLine();
  root.append(
    h('div', { className: 'panel' }, [
      h('p', {}, [
        h('strong', {}, t('cred.clientId')),
        h('code', { className: 'secret-value', id: 'client-id' }, me.clientId),
      ]),
      h('p', {}, parts('cred.status', { status: stateBadge('client', me.status), scopes: me.scopes.join(', ') })),
      tokens,
    ]),
  );

  const secretOut = h('div', { id: 'client-secret-output', className: 'secret-output' });
  const reset = async () => {
    const result = await act<{ clientSecret: string }>(t('cred.resetLabel'), 'POST', '/secret', undefined, () =>
      t('cred.resetDone'),
    );
    if (!result.ok) return;
    secretOut.replaceChildren(secretBox(t('cred.newSecret'), result.data.clientSecret));
    if (await refreshMe()) {
      const fresh = tokensLine();
      tokens.replaceWith(fresh);
      tokens = fresh;
    }
  };
  root.append(
    h('h2', {}, t('cred.secretTitle')),
    h('p', { className: 'muted' }, t('cred.secretNote')),
    h(
      'button',
      {
        type: 'button',
        className: 'danger',
        id: 'reset-secret',
        onclick: confirmThen(t('cred.resetQuestion'), reset),
      },
      t('cred.resetLabel'),
    ),
    secretOut,
  );

  const webhookOut = h('div', { id: 'webhook-secret-output', className: 'secret-output' });
  const rotate = async () => {
    const result = await act<{ webhookSecret: string; previousSecretValidUntil: string }>(
      t('cred.rotateLabel'),
      'POST',
      '/webhook-secret',
      undefined,
      () => t('cred.rotateDone'),
    );
    if (!result.ok) return;
    const until = result.data.previousSecretValidUntil;
    const note = h('p', {}, parts('cred.oldKeepsSigning', { until: untilText(until) }));
    webhookOut.replaceChildren(secretBox(t('cred.newWebhookSecret'), result.data.webhookSecret, note));
  };
  root.append(
    h('h2', {}, t('cred.webhookTitle')),
    h('p', { className: 'muted' }, t('cred.webhookNote')),
    // Partners look for it here: the secret is shown only when it is issued, so say when that was.
    h('p', { id: 'webhook-secret-where' }, t('cred.webhookWhere')),
    h(
      'button',
      {
        type: 'button',
        className: 'danger',
        id: 'rotate-webhook-secret',
        onclick: confirmThen(t('cred.rotateQuestion'), rotate),
      },
      t('cred.rotateLabel'),
    ),
    webhookOut,
  );
}
