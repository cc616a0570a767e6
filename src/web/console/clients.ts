/** API clients: create one (its secrets shown once), portal links, secret resets, revocation. */

import type { ClientView, CreatedClient } from '../../auth/client-schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { byId, h } from '../common/dom.js';
import { stateBadge } from '../common/states.js';
import { untilText, when } from '../common/time.js';
import { button, confirmThen, empty, field, inlineForm, secretBox, table } from '../common/widgets.js';
import { act, api, link, show, state } from './app.js';
import { clientPage } from './history-pages.js';

type Client = ClientView;

/** The secrets of the last action show here, above the table. */
const output = (...boxes: HTMLElement[]): void => byId('client-output').replaceChildren(...boxes);

function actions(c: Client) {
  if (c.status === 'revoked') return h('span', { className: 'muted' }, 'revoked');
  const base = `/clients/${encodeURIComponent(c.id)}`;
  return [
    // The subscription form with this client chosen (its own address: /dashboard/subscriptions?client=…).
    link({ section: 'subscriptions', query: { client: c.id } }, 'Subscribe', 'button-link secondary'),
    button(
      'Portal link',
      async () => {
        const r = await act<{ url: string; expiresAt: string }>(
          'Create portal link',
          'POST',
          `${base}/portal-link`,
          undefined,
          {
            stay: true,
          },
        );
        if (r.ok) {
          const note = h('p', {}, [
            'Works once, until ',
            untilText(r.data.expiresAt),
            '. Send it to the partner over a channel you trust.',
          ]);
          output(secretBox(`Portal sign-in link for ${c.name}`, r.data.url, note));
        }
      },
      '',
    ),
    button(
      'Reset secret',
      confirmThen(
        `Reset the client secret of ${c.name}? Its current secret and all its tokens stop working at once.`,
        async () => {
          const r = await act<{ clientSecret: string }>(
            `Reset secret of ${c.name}`,
            'POST',
            `${base}/secret`,
            undefined,
            {
              stay: true,
            },
          );
          if (r.ok) output(secretBox(`New client secret of ${c.name}`, r.data.clientSecret));
        },
      ),
    ),
    button(
      'Rotate webhook secret',
      confirmThen(`Rotate the webhook secret of ${c.name}? The old one keeps signing during the overlap.`, async () => {
        const r = await act<{ webhookSecret: string; previousSecretValidUntil: string }>(
          `Rotate webhook secret of ${c.name}`,
          'POST',
          `${base}/webhook-secret`,
          undefined,
          { stay: true },
        );
        if (r.ok) {
          const note = h('p', {}, [
            'The old secret keeps signing as well until ',
            untilText(r.data.previousSecretValidUntil),
            ', so receivers can switch without losing a delivery.',
          ]);
          output(secretBox(`New webhook secret of ${c.name}`, r.data.webhookSecret, note));
        }
      }),
    ),
    button(
      'Revoke',
      confirmThen(`Revoke ${c.name}? Its credentials and tokens stop working. This cannot be undone.`, () =>
        act(`Revoke ${c.name}`, 'DELETE', base),
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
  root.append(h('h1', {}, 'API clients'));
  const name = h('input', { name: 'name', placeholder: 'e.g. Boekhandel Noord', required: true, maxlength: 200 });
  const create = async () => {
    const result = await act<Created>('Create client', 'POST', '/clients', { name: name.value.trim() }, { stay: true });
    if (!result.ok) return;
    await show('clients', true);
    const made = result.data;
    output(
      secretBox(`Client secret of ${made.name} (client id ${made.clientId})`, made.clientSecret),
      secretBox(`Webhook secret of ${made.name}`, made.webhookSecret),
    );
  };
  root.append(inlineForm([field('New client name', name)], 'Create client', create), h('div', { id: 'client-output' }));
  const result = await api<Page<Client>>('GET', '/clients');
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  root.append(
    table<Client>(
      rowsOf(result),
      [
        ['Name', (c) => h('strong', {}, link({ section: 'clients', id: c.id }, c.name))],
        ['Client ID', (c) => h('span', { className: 'id' }, c.clientId)],
        ['Scopes', (c) => c.scopes.join(', ')],
        ['Status', (c) => stateBadge('client', c.status)],
        ['Created', (c) => when(c.createdAt)],
        ['Actions', actions, 'actions'],
      ],
      'No clients yet. Create one above: its secrets are shown once, then send the partner a portal link.',
    ),
  );
}
