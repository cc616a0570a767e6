/**
 * The form that subscribes a receiver (portal, and the console on a client's behalf): receiver URL,
 * event and, for offer events, the filter the API accepts — `{ eans }` (only these EANs) or `{ list }`
 * (only the offers for a list's current items). A refusal is shown under the field it is about, named
 * by the field's label ("Receiver URL must use http or https, not ftp"), never by the API's field name.
 */

import { EVENT_NAMES, EVENTS } from '../../events/catalogue.js';
import type { SubscriptionFilter } from '../../subscriptions/filter-schema.js';
import { type Failure, localProblem } from './api.js';
import { eventName } from './deliveries.js';
import { h } from './dom.js';
import { t } from './i18n.js';
import { field, select } from './widgets.js';

export interface SubscriptionInput {
  notificationUrl: string;
  event: string;
  filter?: SubscriptionFilter;
}

/** A list the filter may follow, as the picker offers it. */
export interface ListChoice {
  identifier: string;
  name: string;
  school: string;
}

export interface SubscriptionFormOptions {
  /** Sends the input; a refusal comes back to be shown under its field. */
  submit: (input: SubscriptionInput) => Promise<Failure | null>;
  /** Lists offered in the list picker (the identifier can always be typed). */
  lists?: readonly ListChoice[];
  /** The submit button's text. */
  label?: string;
}

/**
 * The events a filter may be put on: those about offers (as subscriptions/filter-schema.ts says; read
 * from the catalogue here, so the page's bundle does not carry the schema library).
 */
const FILTERABLE: readonly string[] = EVENT_NAMES.filter((name) => EVENTS[name].resource === 'offer');

type FieldName = 'url' | 'event' | 'eans' | 'list' | 'form';

/** The API's names in messages, and the labels the form shows for them. */
const LABELS: readonly (readonly [RegExp, string, FieldName])[] = [
  [/notificationUrl/g, t('form.receiverUrl'), 'url'],
  [/filter\.eans|\beans\b/g, t('form.eans'), 'eans'],
  [/filter\.list/g, t('form.list'), 'list'],
  [/\bevent\b/g, t('form.event'), 'event'],
];

const PATHS: Readonly<Record<string, FieldName>> = {
  '/notificationUrl': 'url',
  '/event': 'event',
  '/filter/eans': 'eans',
  '/filter/list': 'list',
  '/filter': 'eans',
};

/** Which field a refusal is about, and its sentence with the field's label instead of the API's name. */
export function placeRefusal(result: Failure): { field: FieldName; text: string } {
  const data = typeof result.data === 'object' && result.data !== null ? result.data : {};
  const raw = data.detail ?? data.title ?? `HTTP ${result.status}`;
  const path = data.errors?.find((error) => error.path !== undefined && PATHS[error.path] !== undefined)?.path;
  let where: FieldName = path === undefined ? 'form' : (PATHS[path] ?? 'form');
  if ('invalidEans' in data) where = 'eans';
  let text = raw;
  for (const [pattern, label, name] of LABELS) {
    if (where === 'form' && pattern.test(raw)) where = name;
    pattern.lastIndex = 0;
    text = text.replace(pattern, label);
  }
  if (where === 'form' && /public address/.test(raw)) where = 'url';
  const local = localProblem(data);
  if (local !== undefined) {
    const aboutUrl = data.code === 'blocked-address' || data.code === 'unresolvable-host';
    return { field: where === 'form' && aboutUrl ? 'url' : where, text: local };
  }
  return { field: where, text: text.charAt(0).toUpperCase() + text.slice(1) };
}

/** EANs as typed: separated by commas, spaces or new lines; blanks dropped. */
const eanList = (text: string): string[] =>
  text
    .split(/[\s,;]+/)
    .map((ean) => ean.trim())
    .filter(Boolean);

export function subscriptionForm(options: SubscriptionFormOptions): HTMLFormElement {
  const url = h('input', {
    type: 'url',
    name: 'notificationUrl',
    // No absolute URL in the page's assets, not even an example (a test guards against external references).
    placeholder: t('form.urlPlaceholder'),
    required: true,
    size: 40,
    maxlength: 2048,
  });
  const event = select(
    EVENT_NAMES.map((e) => [e, `${eventName(e)} (${e})`] as const),
    'list.published',
    t('form.event'),
  );
  const which = select(
    [
      ['', t('form.everyOffer')],
      ['eans', t('form.onlyEans')],
      ['list', t('form.onlyList')],
    ],
    '',
    t('form.whichOffers'),
  );
  const eans = h('textarea', {
    name: 'eans',
    rows: 2,
    cols: 30,
    placeholder: '9789001891442, 9780194837125',
  });
  const datalist = h(
    'datalist',
    { id: 'filter-lists' },
    (options.lists ?? []).map((l) => h('option', { value: l.identifier }, `${l.name} (${l.school})`)),
  );
  const list = h('input', {
    name: 'list',
    list: 'filter-lists',
    size: 34,
    maxlength: 64,
    placeholder: t('form.listPlaceholder'),
  });
  const errors: Record<FieldName, HTMLElement> = {
    url: h('span', { className: 'field-error', id: 'error-url' }),
    event: h('span', { className: 'field-error', id: 'error-event' }),
    eans: h('span', { className: 'field-error', id: 'error-eans' }),
    list: h('span', { className: 'field-error', id: 'error-list' }),
    form: h('p', { className: 'field-error form-error', id: 'error-form' }),
  };
  const inputs: Partial<Record<FieldName, HTMLElement>> = { url, event, eans, list };
  for (const [name, input] of Object.entries(inputs)) input?.setAttribute('aria-describedby', `error-${name}`);

  // The error sits beside the label, not in it: the field's accessible name stays its label.
  const withError = (label: string, input: HTMLElement, name: FieldName): HTMLElement =>
    h('div', { className: 'field-with-error' }, [field(label, input), errors[name]]);
  const eansField = withError(t('form.eansField'), eans, 'eans');
  const listField = withError(t('form.list'), list, 'list');
  const whichField = field(t('form.whichOffers'), which);
  const filterFields = h('div', { className: 'filter-fields' }, [whichField, eansField, listField, datalist]);
  const sync = () => {
    const filterable = FILTERABLE.includes(event.value);
    filterFields.hidden = !filterable;
    eansField.hidden = which.value !== 'eans';
    listField.hidden = which.value !== 'list';
  };
  event.addEventListener('change', sync);
  which.addEventListener('change', sync);
  sync();

  const clear = () => {
    for (const [name, node] of Object.entries(errors)) {
      node.textContent = '';
      inputs[name as FieldName]?.removeAttribute('aria-invalid');
    }
  };
  const submit = h('button', { type: 'submit' }, options.label ?? t('form.subscribe'));
  const form = h(
    'form',
    {
      className: 'inline subscription-form',
      onsubmit: async (e) => {
        e.preventDefault();
        clear();
        const input: SubscriptionInput = { notificationUrl: url.value.trim(), event: event.value };
        if (!filterFields.hidden && which.value === 'eans') input.filter = { eans: eanList(eans.value) };
        if (!filterFields.hidden && which.value === 'list') input.filter = { list: list.value.trim() };
        submit.disabled = true;
        try {
          const refused = await options.submit(input);
          if (refused === null) return;
          const placed = placeRefusal(refused);
          errors[placed.field].textContent = placed.text;
          inputs[placed.field]?.setAttribute('aria-invalid', 'true');
        } finally {
          submit.disabled = false;
        }
      },
    },
    [
      withError(t('form.receiverUrl'), url, 'url'),
      withError(t('form.event'), event, 'event'),
      filterFields,
      submit,
      errors.form,
    ],
  );
  return form;
}
