/**
 * One list on a page of its own (/dashboard/lists/<identifier>): where it sits in the tree, its
 * status and the changes allowed from it, rename in place, and its items (list-items.ts).
 */

import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { historyPanel } from '../common/history.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { empty, plural } from '../common/widgets.js';
import { api, link } from './app.js';
import { listItems } from './list-items.js';
import { type List, moveButtons, renameButton } from './list-moves.js';

export async function listDetail(root: HTMLElement, identifier: string): Promise<void> {
  const back = h('p', {}, link({ section: 'lml' }, '← Schools & lists'));
  const result = await api<List>('GET', `/lists/${encodeURIComponent(identifier)}`);
  if (!result.ok) {
    root.append(back, h('h1', {}, 'List'), empty(`Could not load list ${identifier}: ${problemText(result)}`));
    return;
  }
  const list = result.data;
  const mandatory = list.items.filter((item) => item.mandatory).length;
  root.append(
    back,
    h('h1', {}, list.name),
    h('p', { className: 'breadcrumb muted' }, list.breadcrumb.join(' › ')),
    h('dl', { className: 'facts panel' }, [
      h('dt', {}, 'Status'),
      h('dd', {}, stateBadge('list', list.status)),
      h('dt', {}, 'School'),
      h('dd', {}, list.school.name),
      h('dt', {}, 'Items'),
      h('dd', {}, `${plural(list.items.length, 'item', 'items')}, ${mandatory} mandatory`),
      h('dt', {}, 'Updated'),
      h('dd', {}, when(list.updatedAt)),
      h('dt', {}, 'Identifier'),
      h('dd', {}, h('code', { className: 'id' }, list.identifier)),
      h('dt', {}, 'Change'),
      h('dd', {}, h('span', { className: 'row moves' }, [renameButton(list), moveButtons(list)])),
    ]),
    h('h2', {}, 'Items'),
    h(
      'p',
      { className: 'muted' },
      'Each change is saved at once and announced to subscribers as list.updated. Mandatory books are prescribed; the others are optional.',
    ),
    listItems(list),
    await historyPanel(api, 'list', list.identifier),
  );
}
