/**
 * A list's items on its page: add one, remove one, move one up or down, mark it mandatory or optional.
 * Every change sends the whole item list to the list's own endpoint (PATCH /lists/{identifier}), so the
 * server's validation of a list (EAN check digits, each EAN once, a title) is the only one; its
 * refusals are shown beside the item or the field they are about, never only in the notice bar.
 */
import type { ListItem } from '../../lml/schemas.js';
import { type Failure, localProblem } from '../common/api.js';
import { h, notice } from '../common/dom.js';
import { type MessageKey, t } from '../common/i18n.js';
import { button, confirmThen, field, table } from '../common/widgets.js';
import { api, show } from './app.js';
import type { List } from './list-moves.js';

type ItemField = 'ean' | 'title' | 'author' | 'publisher' | 'remarks';

/** A refusal, split by the item (index) and field each error is about; `form` keeps the rest. */
interface Placed {
  items: Map<number, string[]>;
  form: string[];
}

const FIELD_LABELS: Readonly<Record<string, MessageKey>> = {
  ean: 'item.ean',
  title: 'item.title',
  author: 'item.author',
  publisher: 'item.publisher',
  remarks: 'item.remarks',
  mandatory: 'item.mandatory',
};

function place(refusal: Failure): Placed {
  const placed: Placed = { items: new Map(), form: [] };
  const data = typeof refusal.data === 'object' && refusal.data !== null ? refusal.data : {};
  // In Dutch, each field is named with the problem's sentence (the API's field messages are English).
  const local = localProblem({ ...data, errors: [], invalidEans: [] });
  for (const error of data.errors ?? []) {
    const match = /^\/items\/(\d+)(?:\/(\w+))?/.exec(error.path ?? '');
    const message = local ?? error.message ?? '';
    if (match === null) {
      placed.form.push(message);
      continue;
    }
    const index = Number(match[1]);
    const key = FIELD_LABELS[match[2] ?? ''];
    const label = key === undefined ? t('item.item') : t(key);
    const text =
      local === undefined
        ? `${label} ${message}`.replace(/\bitem (\d+)\b/g, (_, n: string) => t('item.itemNumber', { n: Number(n) + 1 }))
        : `${label}: ${local}`;
    placed.items.set(index, [...(placed.items.get(index) ?? []), text]);
  }
  if (placed.items.size === 0 && placed.form.length === 0)
    placed.form.push(localProblem(data) ?? data.detail ?? data.title ?? `HTTP ${refusal.status}`);
  return placed;
}

const errorLine = (lines: readonly string[]) =>
  lines.length === 0 ? null : h('p', { className: 'field-error', role: 'alert' }, lines.join('; '));

/** The item as the API takes it back (every field, so nothing is lost on a save). */
const input = (item: ListItem) => ({
  ean: item.ean,
  title: item.title,
  author: item.author,
  publisher: item.publisher,
  mandatory: item.mandatory,
  remarks: item.remarks,
});

export function listItems(list: List): HTMLElement {
  const holder = h('div', { className: 'list-items' });
  const items = list.items;
  /** Sends the new items; on a refusal draws the page part again with the errors in place. */
  /** `what` names the change for a refusal ("Move … up"), `done` says it happened ("Moved … up."). */
  const save = async (next: ListItem[], what: string, done: string, addDraft?: ListItem): Promise<void> => {
    const result = await api('PATCH', `/lists/${encodeURIComponent(list.identifier)}`, { items: next.map(input) });
    if (result.ok) {
      await show('lml', true);
      notice(t('item.saved', { done }));
      return;
    }
    notice(t('item.notSaved', { what }), true);
    draw(place(result), addDraft, items.length);
  };
  const move = (from: number, to: number) => () => {
    const next = [...items];
    const [item] = next.splice(from, 1);
    if (item === undefined) return;
    next.splice(to, 0, item);
    const up = to < from;
    return save(
      next,
      t(up ? 'item.moveUp' : 'item.moveDown', { title: item.title }),
      t(up ? 'item.movedUp' : 'item.movedDown', { title: item.title }),
    );
  };
  const draw = (placed: Placed = { items: new Map(), form: [] }, draft?: ListItem, newIndex = -1): void => {
    const rows = items.map((item, index) => ({ item, index }));
    const mandatory = (item: ListItem, index: number) =>
      h('input', {
        type: 'checkbox',
        checked: item.mandatory,
        'aria-label': t('item.mandatoryOf', { title: item.title }),
        onchange: () =>
          save(
            items.map((x, i) => (i === index ? { ...x, mandatory: !x.mandatory } : x)),
            t(item.mandatory ? 'item.nowOptional' : 'item.nowMandatory', { title: item.title }),
            t(item.mandatory ? 'item.madeOptional' : 'item.madeMandatory', { title: item.title }),
          ),
      });
    holder.replaceChildren(
      table(
        rows,
        [
          ['#', ({ index }) => String(index + 1)],
          [t('item.ean'), ({ item }) => h('span', { className: 'id' }, item.ean)],
          [
            t('item.title'),
            ({ item, index }) => [h('strong', {}, item.title), errorLine(placed.items.get(index) ?? [])],
          ],
          [t('item.author'), ({ item }) => item.author ?? '—'],
          [t('item.publisher'), ({ item }) => item.publisher ?? '—'],
          [
            t('item.mandatory'),
            ({ item, index }) =>
              h('label', { className: 'toggle' }, [mandatory(item, index), t('item.mandatoryToggle')]),
          ],
          [t('item.remarks'), ({ item }) => item.remarks ?? '—'],
          [
            t('common.actions'),
            ({ item, index }) => [
              index > 0 ? button(t('item.up'), move(index, index - 1)) : null,
              index < items.length - 1 ? button(t('item.down'), move(index, index + 1)) : null,
              button(
                t('item.remove'),
                confirmThen(t('item.removeQuestion', { title: item.title, ean: item.ean, list: list.name }), () =>
                  save(
                    items.filter((_, i) => i !== index),
                    t('item.removeLabel', { title: item.title }),
                    t('item.removed', { title: item.title }),
                  ),
                ),
                'danger',
              ),
            ],
            'actions',
          ],
        ],
        t('item.none'),
      ),
      addForm(placed, draft, newIndex),
    );
  };
  const addForm = (placed: Placed, draft: ListItem | undefined, newIndex: number): HTMLElement => {
    const text = (name: ItemField, extra: Record<string, string | number | boolean> = {}) =>
      h('input', { name, value: draft?.[name] ?? '', ...extra });
    const ean = text('ean', { required: true, inputmode: 'numeric', size: 15, placeholder: '9789001891442' });
    const title = text('title', { required: true, maxlength: 500, placeholder: t('item.titlePlaceholder') });
    const author = text('author', { maxlength: 300 });
    const publisher = text('publisher', { maxlength: 300 });
    const remarks = text('remarks', { maxlength: 1000 });
    const mandatory = h('input', { type: 'checkbox', name: 'mandatory', checked: draft?.mandatory ?? true });
    const orNull = (node: HTMLInputElement) => node.value.trim() || null;
    const submit = (event: Event) => {
      event.preventDefault();
      const item: ListItem = {
        ean: ean.value.trim(),
        title: title.value.trim(),
        author: orNull(author),
        publisher: orNull(publisher),
        mandatory: mandatory.checked,
        remarks: orNull(remarks),
      };
      const done = t('item.added', { title: item.title });
      return save([...items, item], t('item.addLabel', { title: item.title }), done, item);
    };
    const errors = [...(placed.items.get(newIndex) ?? []), ...placed.form];
    return h('form', { className: 'inline add-item', onsubmit: (event) => void submit(event) }, [
      h('h3', {}, t('item.addTitle')),
      field(t('item.eanIsbn'), ean),
      field(t('item.title'), title),
      field(t('item.authorOptional'), author),
      field(t('item.publisherOptional'), publisher),
      field(t('item.remarksOptional'), remarks),
      h('label', { className: 'toggle' }, [mandatory, t('item.mandatoryCheck')]),
      h('button', { type: 'submit' }, t('item.add')),
      errorLine(errors),
    ]);
  };
  draw();
  return holder;
}
