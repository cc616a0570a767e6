/**
 * One list on a page of its own (/dashboard/lists/<identifier>): where it sits in the tree, its
 * status and the changes allowed from it, rename in place, and its items (list-items.ts).
 */

import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { historyPanel } from '../common/history.js';
import { t } from '../common/i18n.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { empty } from '../common/widgets.js';
import { api, link } from './app.js';
import { historyLinks } from './history-pages.js';
import { listItems } from './list-items.js';
import { type List, moveButtons, renameButton } from './list-moves.js';

export async function listDetail(root: HTMLElement, identifier: string): Promise<void> {
  const back = h('p', {}, link({ section: 'lml' }, t('list.back')));
  const result = await api<List>('GET', `/lists/${encodeURIComponent(identifier)}`);
  if (!result.ok) {
    root.append(
      back,
      h('h1', {}, t('list.one')),
      empty(t('list.couldNotLoad', { id: identifier, problem: problemText(result) })),
    );
    return;
  }
  const list = result.data;
  const mandatory = list.items.filter((item) => item.mandatory).length;
  root.append(
    back,
    h('h1', {}, list.name),
    h('p', { className: 'breadcrumb muted' }, list.breadcrumb.join(' › ')),
    h('dl', { className: 'facts panel' }, [
      h('dt', {}, t('common.status')),
      h('dd', {}, stateBadge('list', list.status)),
      h('dt', {}, t('lml.school')),
      h('dd', {}, list.school.name),
      h('dt', {}, t('list.items')),
      h('dd', {}, t('list.itemCount', { count: list.items.length, mandatory })),
      h('dt', {}, t('common.updatedColumn')),
      h('dd', {}, when(list.updatedAt)),
      h('dt', {}, t('common.identifier')),
      h('dd', {}, h('code', { className: 'id' }, list.identifier)),
      h('dt', {}, t('list.change')),
      h('dd', {}, h('span', { className: 'row moves' }, [renameButton(list), moveButtons(list)])),
    ]),
    h('h2', {}, t('list.items')),
    h('p', { className: 'muted' }, t('list.itemsNote')),
    listItems(list),
    await historyPanel(api, 'list', list.identifier, historyLinks),
  );
}
