/** Offers: search by EAN, create, change status or price. Conditions and statuses come from offers/model.ts. */
import { OFFER_CONDITIONS, OFFER_STATUSES } from '../../offers/model.js';
import type { AdminOffer } from '../../offers/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { h } from '../common/dom.js';
import { when } from '../common/time.js';
import { badge, empty, field, inlineForm, select, table } from '../common/widgets.js';
import { act, api, show, state } from './app.js';

type Offer = AdminOffer;

const euro = (value: number): string =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(value);
const digits = (value: string): string => value.replace(/[^0-9]/g, '');

function offerActions(o: Offer) {
  const next = select(OFFER_STATUSES, o.status, 'New status');
  const setStatus = () => act(`Set offer status to ${next.value}`, 'PATCH', `/offers/${o.id}`, { status: next.value });
  const editPrice = () => {
    const value = window.prompt(`New seller price in euros for ${o.ean}`, String(o.sellerPrice));
    if (value !== null)
      void act('Change price', 'PATCH', `/offers/${o.id}`, { price: Number(value.replace(',', '.')) });
  };
  return [
    next,
    h('button', { type: 'button', className: 'secondary', onclick: () => void setStatus() }, 'Set status'),
    h('button', { type: 'button', className: 'secondary', onclick: editPrice }, 'Edit price'),
  ];
}

export async function offers(root: HTMLElement): Promise<void> {
  const filters = state.filters;
  root.append(h('h1', {}, 'Offers'));
  const search = h('input', { name: 'ean', inputmode: 'numeric', placeholder: 'EAN or ISBN-13', value: filters.ean });
  root.append(
    inlineForm([field('Search by EAN/ISBN', search)], 'Search', () => {
      filters.ean = digits(search.value);
      return show('offers');
    }),
  );
  const ean = h('input', {
    name: 'newEan',
    required: true,
    inputmode: 'numeric',
    size: 15,
    placeholder: '9789001891442',
  });
  const price = h('input', {
    name: 'price',
    required: true,
    type: 'number',
    step: '0.01',
    min: '0.01',
    placeholder: '12.50',
  });
  const condition = select(OFFER_CONDITIONS, 'good', 'Condition');
  const status = select(OFFER_STATUSES, 'published', 'Status');
  const create = () =>
    act('Create offer', 'POST', '/offers', {
      ean: digits(ean.value),
      price: Number(price.value),
      condition: condition.value,
      status: status.value,
    });
  const fields = [
    field('EAN/ISBN', ean),
    field('Seller price (EUR)', price),
    field('Condition', condition),
    field('Status', status),
  ];
  root.append(h('h2', {}, 'New offer'), inlineForm(fields, 'Create offer', create));
  const query = new URLSearchParams({ limit: '100' });
  if (filters.ean) query.set('ean', filters.ean);
  const result = await api<Page<Offer>>('GET', `/offers?${query.toString()}`);
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  root.append(
    h('h2', {}, filters.ean ? `Offers for ${filters.ean}` : 'Offers'),
    table<Offer>(
      rowsOf(result),
      [
        ['EAN', (o) => h('span', { className: 'id' }, o.ean)],
        ['Seller price', (o) => euro(o.sellerPrice)],
        ['Buyer pays', (o) => euro(o.price)],
        ['Condition', (o) => o.condition],
        ['Status', (o) => badge(o.status)],
        ['Updated', (o) => when(o.updatedAt)],
        ['Actions', offerActions, 'actions'],
      ],
      filters.ean
        ? 'No offer for this EAN. Create one above.'
        : 'No offers yet. Create one above or import a CSV with npx shelfmark offers import.',
    ),
  );
}
