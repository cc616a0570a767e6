/**
 * Operators (admins only): who signed in through the identity provider, with which role and when
 * last, and disabling one (their sessions end at once, everywhere) or enabling them again.
 */
import type { OperatorView } from '../../operators/schemas.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { when } from '../common/time.js';
import { badge, button, confirmThen, empty, table } from '../common/widgets.js';
import { act, api } from './app.js';
import { signedIn } from './roles.js';

const who = (o: OperatorView): string => o.name ?? o.email ?? o.sub;

function actions(o: OperatorView) {
  const path = `/operators/${encodeURIComponent(o.sub)}`;
  if (o.status === 'disabled')
    return button(`Enable`, () => act(`Enable ${who(o)}`, 'POST', `${path}/enable`), 'secondary');
  if (signedIn.operator?.sub === o.sub) return h('span', { className: 'muted' }, 'you');
  return button(
    'Disable',
    confirmThen(`Disable ${who(o)}? Their sessions end at once, and they cannot sign in until enabled again.`, () =>
      act(`Disable ${who(o)}`, 'POST', `${path}/disable`),
    ),
    'danger',
  );
}

export async function operators(root: HTMLElement): Promise<void> {
  root.append(
    h('h1', {}, 'Operators'),
    h(
      'p',
      { className: 'muted' },
      'Everyone who signed in through the identity provider. Roles come from the provider at each sign-in; a role changed there applies at the next one.',
    ),
  );
  const result = await api<{ data: OperatorView[] }>('GET', '/operators');
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  root.append(
    table<OperatorView>(
      result.data.data,
      [
        ['Name', (o) => h('strong', {}, o.name ?? '—')],
        ['E-mail', (o) => o.email ?? '—'],
        ['Role', (o) => badge(o.role, o.role === 'admin' ? 'published' : 'validated')],
        ['Status', (o) => badge(o.status, o.status === 'active' ? 'active' : 'revoked')],
        ['Last sign-in', (o) => when(o.lastSignInAt)],
        ['First sign-in', (o) => when(o.firstSignInAt)],
        ['Subject', (o) => h('span', { className: 'id' }, o.sub)],
        ['Actions', actions, 'actions'],
      ],
      'Nobody has signed in through the identity provider yet.',
    ),
  );
}
