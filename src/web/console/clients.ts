/** API clients: create one (its secrets shown once), portal links, secret resets, revocation. */

import type { ClientView, CreatedClient } from '../../auth/client-schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { byId, h } from '../common/dom.js';
import { parts, t } from '../common/i18n.js';
import { stateBadge } from '../common/states.js';
import { untilText, when } from '../common/time.js';
import { button, confirmThen, empty, field, inlineForm, secretBox, table } from '../common/widgets.js';
import { act, api, link, show, state } from './app.js';
import { clientPage } from './history-pages.js';

type Client = ClientView;

/** The secrets of the last action show here, above the table. */
const output = (...boxes: HTMLElement[]): void => byId('client-output').replaceChildren(...boxes);

function actions(c: Client) {
  if (c.status === 'revoked') return h('span', { className: 'muted' }, t('clients.revoked'));
  const base = `/clients/${encodeURIComponent(c.id)}`;
  return [
    // The subscription form with this client chosen (its own address: /dashboard/subscriptions?client=…).
    link({ section: 'subscriptions', query: { client: c.id } }, t('clients.subscribe'), 'button-link secondary'),
    button(
      t('clients.portalLink'),
      async () => {
        const r = await act<{ url: string; expiresAt: string }>(
          t('clients.createPortalLink'),
          'POST',
          `${base}/portal-link`,
          undefined,
          { stay: true, done: () => t('clients.portalLinkDone', { name: c.name }) },
        );
        if (r.ok) {
          const note = h('p', {}, parts('clients.linkNote', { until: untilText(r.data.expiresAt) }));
          output(secretBox(t('clients.linkTitle', { name: c.name }), r.data.url, note));
        }
      },
      '',
    ),
    button(
      t('clients.resetSecret'),
      confirmThen(t('clients.resetQuestion', { name: c.name }), async () => {
        const r = await act<{ clientSecret: string }>(
          t('clients.resetLabel', { name: c.name }),
          'POST',
          `${base}/secret`,
          undefined,
          { stay: true, done: () => t('clients.resetDone', { name: c.name }) },
        );
        if (r.ok) output(secretBox(t('clients.newSecret', { name: c.name }), r.data.clientSecret));
      }),
    ),
    button(
      t('clients.rotate'),
      confirmThen(t('clients.rotateQuestion', { name: c.name }), async () => {
        const r = await act<{ webhookSecret: string; previousSecretValidUntil: string }>(
          t('clients.rotateLabel', { name: c.name }),
          'POST',
          `${base}/webhook-secret`,
          undefined,
          { stay: true, done: () => t('clients.rotateDone', { name: c.name }) },
        );
        if (r.ok) {
          const note = h(
            'p',
            {},
            parts('clients.oldKeepsSigning', { until: untilText(r.data.previousSecretValidUntil) }),
          );
          output(secretBox(t('clients.newWebhookSecret', { name: c.name }), r.data.webhookSecret, note));
        }
      }),
    ),
    button(
      t('clients.revoke'),
      confirmThen(t('clients.revokeQuestion', { name: c.name }), () =>
        act(t('clients.revokeLabel', { name: c.name }), 'DELETE', base, undefined, {
          done: () => t('clients.revokeDone', { name: c.name }),
        }),
      ),
      'danger',
    ),
  ];
}

type Created = CreatedClient;

export async function clients(root: HTMLElement): Promise<void> {
  if (state.detail) {
    await clientPage(root, state.detail);
    return;
  }
  root.append(h('h1', {}, t('clients.title')));
  const name = h('input', { name: 'name', placeholder: t('clients.namePlaceholder'), required: true, maxlength: 200 });
  const create = async () => {
    const result = await act<Created>(
      t('clients.create'),
      'POST',
      '/clients',
      { name: name.value.trim() },
      { stay: true, done: (made) => t('clients.createDone', { name: made.name }) },
    );
    if (!result.ok) return;
    await show('clients', true);
    const made = result.data;
    output(
      secretBox(t('clients.secretOf', { name: made.name, clientId: made.clientId }), made.clientSecret),
      secretBox(t('clients.webhookSecretOf', { name: made.name }), made.webhookSecret),
    );
  };
  root.append(
    inlineForm([field(t('clients.newName'), name)], t('clients.create'), create),
    h('div', { id: 'client-output' }),
  );
  const result = await api<Page<Client>>('GET', '/clients');
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  root.append(
    table<Client>(
      rowsOf(result),
      [
        [t('common.name'), (c) => h('strong', {}, link({ section: 'clients', id: c.id }, c.name))],
        [t('clients.clientId'), (c) => h('span', { className: 'id' }, c.clientId)],
        [t('clients.scopes'), (c) => c.scopes.join(', ')],
        [t('common.status'), (c) => stateBadge('client', c.status)],
        [t('common.created'), (c) => when(c.createdAt)],
        [t('common.actions'), actions, 'actions'],
      ],
      t('clients.none'),
    ),
  );
}
