/**
 * A list's status buttons, in the tree and on the list's page alike: only the changes the server allows
 * (lml/status.ts, compiled in), Archive always last, each change naming the events it emitted.
 * Publishing an empty list asks first and says it is empty; un-publishing says that it un-publishes.
 */
import type { ListView } from '../../lml/schemas.js';
import { type ListStatus, TRANSITIONS } from '../../lml/status.js';
import { h } from '../common/dom.js';
import { localState, t } from '../common/i18n.js';
import { confirmThen } from '../common/widgets.js';
import { act } from './app.js';

/** The API leaves the status set open, as the specification does; Shelfmark stores only these four. */
export type List = Omit<ListView, 'status'> & { status: ListStatus };

function listEvents(from: ListStatus, to: ListStatus): string {
  if (from === to) return '';
  return to === 'published' ? 'list.status, list.published' : 'list.status';
}

function transitionLabel(from: ListStatus, to: ListStatus): string {
  if (to === 'published') return t('list.publish');
  if (to === 'validated') return from === 'published' ? t('list.unpublish') : t('list.validate');
  if (to === 'archived') return t('list.archive');
  return from === 'archived' ? t('list.restore') : t('list.backToDraft');
}

/** The question asked before a move, or none when the move needs no second thought. */
export function moveQuestion(list: Pick<List, 'name' | 'status' | 'items'>, to: ListStatus): string | null {
  const count = list.items.length;
  if (to === 'published' && count === 0) return t('list.emptyQuestion', { name: list.name });
  if (to === 'archived') return t('list.archiveQuestion', { name: list.name });
  if (list.status === 'published' && to === 'validated') return t('list.unpublishQuestion', { name: list.name });
  return null;
}

export function moveButtons(list: List): HTMLElement[] {
  const targets = [...(TRANSITIONS[list.status] ?? [])].sort(
    (a, b) => Number(a === 'archived') - Number(b === 'archived'),
  );
  return targets.map((to) => {
    const run = () =>
      act(
        t('list.moveLabel', { name: list.name, status: localState('list', to) ?? to }),
        'POST',
        `/lists/${encodeURIComponent(list.identifier)}/status`,
        { status: to },
        {
          done: () => t('list.nowStatus', { name: list.name, status: localState('list', to) ?? to }),
          events: () => listEvents(list.status, to),
        },
      );
    const question = moveQuestion(list, to);
    const onclick = question === null ? run : confirmThen(question, run);
    const className = to === 'archived' ? 'danger' : 'secondary';
    return h(
      'button',
      { type: 'button', className, onclick: () => void onclick(), 'data-move': to },
      transitionLabel(list.status, to),
    );
  });
}

/** Rename in place: the button becomes a small form (no native prompt), Escape or Cancel puts it back. */
export function renameButton(list: Pick<List, 'identifier' | 'name'>): HTMLElement {
  const open: HTMLButtonElement = h('button', { type: 'button', className: 'secondary' }, t('list.rename'));
  open.addEventListener('click', () => {
    const input = h('input', {
      name: 'listName',
      required: true,
      maxlength: 200,
      value: list.name,
      'aria-label': t('list.newName', { name: list.name }),
    });
    const close = (): void => form.replaceWith(open);
    const form: HTMLFormElement = h(
      'form',
      {
        className: 'inline rename',
        onsubmit: (event) => {
          event.preventDefault();
          const name = input.value.trim();
          if (name === '' || name === list.name) return close();
          void act(
            t('list.renameLabel'),
            'PATCH',
            `/lists/${encodeURIComponent(list.identifier)}`,
            { name },
            { done: () => t('list.renamed', { name }), events: () => 'list.updated' },
          );
        },
        onkeydown: (event) => {
          if ((event as KeyboardEvent).key === 'Escape') close();
        },
      },
      [
        input,
        h('button', { type: 'submit' }, t('list.saveName')),
        h('button', { type: 'button', className: 'secondary', onclick: close }, t('common.cancel')),
      ],
    );
    open.replaceWith(form);
    input.focus();
    input.select();
  });
  return open;
}
