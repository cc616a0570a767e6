/**
 * The client's credentials: its id, status, and the two secret actions. Each new secret appears
 * right under the button that made it, and a reset refreshes the "tokens minted before" line.
 */
import { h } from '../common/dom.js';
import { stateBadge } from '../common/states.js';
import { untilText, when } from '../common/time.js';
import { confirmThen, secretBox } from '../common/widgets.js';
import { act, refreshMe, state } from './app.js';

/** A new client's cut-off is its creation time: its secret was never reset, so no token is refused for age. */
function tokensLine(): HTMLElement {
  const me = state.me;
  const cutOff = me?.tokensValidAfter;
  const neverReset = me === null || cutOff === undefined || Date.parse(cutOff) <= Date.parse(me.createdAt);
  if (neverReset)
    return h(
      'p',
      { className: 'muted', id: 'tokens-valid-after' },
      'The client secret has not been reset since the client was created: every token minted with it is valid until it expires.',
    );
  return h('p', { className: 'muted', id: 'tokens-valid-after' }, [
    'The client secret was last reset ',
    when(cutOff),
    ': tokens minted before then are refused.',
  ]);
}

export async function credentials(root: HTMLElement): Promise<void> {
  const me = state.me;
  if (me === null) return;
  root.append(h('h1', {}, 'Credentials'));
  let tokens = tokensLine();
  root.append(
    h('div', { className: 'panel' }, [
      h('p', {}, [
        h('strong', {}, 'Client ID: '),
        h('code', { className: 'secret-value', id: 'client-id' }, me.clientId),
      ]),
      h('p', {}, ['Status: ', stateBadge('client', me.status), ' · scopes: ', me.scopes.join(', ')]),
      tokens,
    ]),
  );

  const secretOut = h('div', { id: 'client-secret-output', className: 'secret-output' });
  const reset = async () => {
    const result = await act<{ clientSecret: string }>('Reset client secret', 'POST', '/secret');
    if (!result.ok) return;
    secretOut.replaceChildren(secretBox('New client secret', result.data.clientSecret));
    if (await refreshMe()) {
      const fresh = tokensLine();
      tokens.replaceWith(fresh);
      tokens = fresh;
    }
  };
  root.append(
    h('h2', {}, 'Client secret'),
    h(
      'p',
      { className: 'muted' },
      'Reset it when it may have been exposed. The old secret and every token minted with it stop working at once.',
    ),
    h(
      'button',
      {
        type: 'button',
        className: 'danger',
        id: 'reset-secret',
        onclick: confirmThen(
          'Reset your client secret? The current secret and all its tokens stop working immediately.',
          reset,
        ),
      },
      'Reset client secret',
    ),
    secretOut,
  );

  const webhookOut = h('div', { id: 'webhook-secret-output', className: 'secret-output' });
  const rotate = async () => {
    const result = await act<{ webhookSecret: string; previousSecretValidUntil: string }>(
      'Rotate webhook secret',
      'POST',
      '/webhook-secret',
    );
    if (!result.ok) return;
    const until = result.data.previousSecretValidUntil;
    const note = h('p', {}, [
      'The old secret keeps signing as well until ',
      untilText(until),
      ', so receivers can switch without losing a delivery.',
    ]);
    webhookOut.replaceChildren(secretBox('New webhook secret', result.data.webhookSecret, note));
  };
  root.append(
    h('h2', {}, 'Webhook secret'),
    h(
      'p',
      { className: 'muted' },
      'Webhooks are signed with it. After a rotation the old secret keeps signing for a while, so you can switch receivers without losing a delivery.',
    ),
    h(
      'button',
      {
        type: 'button',
        className: 'danger',
        id: 'rotate-webhook-secret',
        onclick: confirmThen('Rotate your webhook secret?', rotate),
      },
      'Rotate webhook secret',
    ),
    webhookOut,
  );
}
