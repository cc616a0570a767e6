/**
 * The building blocks both pages are made of: badges, tables that stack into cards on a phone (each
 * cell carries data-label for the stylesheet), forms, selects and the show-once secret box.
 */
import { type Child, h } from './dom.js';
import { t } from './i18n.js';

export function badge(text: string, kind: string = text): HTMLElement {
  return h('span', { className: `badge ${kind}` }, text);
}

export function empty(text: string): HTMLElement {
  return h('p', { className: 'empty' }, text);
}

/** [header, cell of a row, optional class of the cell]. */
export type Column<T> = readonly [string, (row: T) => Child, string?];

export function table<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  emptyText = t('common.nothingYet'),
): HTMLElement {
  if (rows.length === 0) return empty(emptyText);
  const head = h(
    'tr',
    {},
    columns.map((col) => h('th', { scope: 'col' }, col[0])),
  );
  const body = rows.map((row) =>
    h(
      'tr',
      {},
      columns.map((col) => h('td', { 'data-label': col[0], className: col[2] ?? null }, h('div', {}, col[1](row)))),
    ),
  );
  return h('div', { className: 'table-wrap' }, h('table', {}, [h('thead', {}, head), h('tbody', {}, body)]));
}

export const confirmThen = (question: string, run: () => unknown) => (): void => {
  if (window.confirm(question)) void run();
};

export function field(label: string, input: HTMLElement): HTMLElement {
  return h('label', { className: 'field' }, [h('span', {}, label), input]);
}

/** Options are values (shown as themselves, '' as "all": no filter) or [value, label] pairs. */
export type Option = string | readonly [string, string];

export function select(options: readonly Option[], value: string, label?: string): HTMLSelectElement {
  return h(
    'select',
    { 'aria-label': label ?? null },
    options.map((option) => {
      const [optionValue, text] = typeof option === 'string' ? [option, option || t('common.all')] : option;
      return h('option', { value: optionValue, selected: optionValue === value }, text);
    }),
  );
}

/** A secret shown once, with a copy button and the warning that it cannot be shown again. */
export function secretBox(title: string, value: string, extra?: Child): HTMLElement {
  const code = h('code', { className: 'secret-value' }, value);
  const copy: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      className: 'secondary',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(value);
          copy.textContent = t('common.copied');
        } catch {
          copy.textContent = t('common.selectAndCopy');
        }
      },
    },
    t('common.copy'),
  );
  return h('div', { className: 'secret', role: 'region', 'aria-label': title }, [
    h('h3', {}, title),
    h('div', { className: 'secret-row' }, [code, copy]),
    h('p', { className: 'warn' }, t('common.copyNow')),
    extra,
  ]);
}

export function inlineForm(fields: readonly Child[], label: string, submit: () => unknown): HTMLFormElement {
  return h(
    'form',
    {
      className: 'inline',
      onsubmit: (event) => {
        event.preventDefault();
        void submit();
      },
    },
    [fields, h('button', { type: 'submit' }, label)],
  );
}

export const button = (label: string, onclick: () => unknown, className = 'secondary', disabled = false) =>
  h('button', { type: 'button', className, disabled, onclick: () => void onclick() }, label);
