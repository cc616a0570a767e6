/**
 * Operators (admins only): who signed in through the identity provider, with which role and when
 * last, and disabling one (their sessions end at once, everywhere) or enabling them again.
 */
import type { OperatorView } from '../../identity/operator-schemas.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { t, word } from '../common/i18n.js';
import { when } from '../common/time.js';
import { badge, button, confirmThen, empty, table } from '../common/widgets.js';
import { act, api } from './app.js';
import { signedIn } from './roles.js';

const who = (o: OperatorView): string => o.name ?? o.email ?? o.sub;

function actions(o: OperatorView) {
  const path = `/operators/${encodeURIComponent(o.sub)}`;
  if (o.status === 'disabled')
    return button(
      t('operators.enable'),
      () =>
        act(t('operators.enableLabel', { who: who(o) }), 'POST', `${path}/enable`, undefined, {
          done: () => t('operators.enabled', { who: who(o) }),
        }),
      'secondary',
    );
  if (signedIn.operator?.sub === o.sub) return h('span', { className: 'muted' }, t('operators.you'));
  return button(
    t('operators.disable'),
    confirmThen(t('operators.disableQuestion', { who: who(o) }), () =>
      act(t('operators.disableLabel', { who: who(o) }), 'POST', `${path}/disable`, undefined, {
        done: () => t('operators.disabled', { who: who(o) }),
      }),
    ),
    'danger',
  );
}

export async function operators(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('operators.title')), h('p', { className: 'muted' }, t('operators.note')));
  const result = await api<{ data: OperatorView[] }>('GET', '/operators');
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  root.append(
    table<OperatorView>(
      result.data.data,
      [
        [t('common.name'), (o) => h('strong', {}, o.name ?? '—')],
        [t('operators.email'), (o) => o.email ?? '—'],
        [t('operators.role'), (o) => badge(word('roles', o.role), o.role === 'admin' ? 'published' : 'validated')],
        [t('common.status'), (o) => badge(o.status, o.status === 'active' ? 'active' : 'revoked')],
        [t('operators.lastSignIn'), (o) => when(o.lastSignInAt)],
        [t('operators.firstSignIn'), (o) => when(o.firstSignInAt)],
        [t('operators.subject'), (o) => h('span', { className: 'id' }, o.sub)],
        [t('common.actions'), actions, 'actions'],
      ],
      t('operators.none'),
    ),
  );
}
