/**
 * Offers: search by EAN (in the address, /dashboard/offers?ean=…), create, and per offer its
 * identifier (the one its events carry), a status change, a price change in place, Withdraw and
 * Delete. Conditions and statuses come from offers/model.ts.
 */
import { OFFER_CONDITIONS, OFFER_STATUSES } from '../../offers/model.js';
import type { AdminOffer } from '../../offers/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { h } from '../common/dom.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { button, confirmThen, empty, field, inlineForm, select, table } from '../common/widgets.js';
import { act, api, go, state } from './app.js';

type Offer = AdminOffer;

const euro = (value: number): string =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(value);
const digits = (value: string): string => value.replace(/[^0-9]/g, '');
const short = (o: Offer): string => `${o.identifier.slice(0, 8)}… (EAN ${o.ean})`;

/** The seller's price, changed in place: the cell becomes a small form until saved or cancelled. */
function priceEditor(o: Offer, cell: () => HTMLElement): HTMLElement {
  const input = h('input', {
    type: 'number',
    name: 'price',
    step: '0.01',
    min: '0.01',
    required: true,
    value: String(o.sellerPrice),
    'aria-label': `New seller price of offer ${o.identifier} (EUR)`,
  });
  const holder = h('span', { className: 'price-edit' });
  const save = async () => {
    const price = Number(input.value.replace(',', '.'));
    await act(`Change price of offer ${short(o)}`, 'PATCH', `/offers/${o.id}`, { price });
  };
  const form = inlineForm([input], 'Save price', save);
  form.append(button('Cancel', () => holder.replaceWith(cell())));
  holder.append(form);
  return holder;
}

function offerActions(o: Offer) {
  const next = select(OFFER_STATUSES, o.status, `New status of offer ${o.identifier}`);
  const setStatus = () =>
    act(`Set status of offer ${short(o)} to ${next.value}`, 'PATCH', `/offers/${o.id}`, { status: next.value });
  const withdraw = () => act(`Withdraw offer ${short(o)}`, 'PATCH', `/offers/${o.id}`, { status: 'withdrawn' });
  const remove = confirmThen(
    `Delete offer ${o.identifier} (EAN ${o.ean})? It disappears from the API; this cannot be undone. Withdraw it instead to keep its history.`,
    () => act(`Delete offer ${short(o)}`, 'DELETE', `/offers/${o.id}`),
  );
  const cell: () => HTMLElement = () => {
    const edit = button('Edit price', () => wrap.replaceWith(priceEditor(o, cell)));
    const wrap = h('span', { className: 'price' }, [euro(o.sellerPrice), ' ', edit]);
    return wrap;
  };
  const open = o.status !== 'withdrawn' && o.status !== 'sold';
  return { next, setStatus, withdraw: open ? withdraw : null, remove, cell };
}

export async function offers(root: HTMLElement): Promise<void> {
  const wanted = state.query.ean ?? '';
  root.append(h('h1', {}, 'Offers'));
  const search = h('input', { name: 'ean', inputmode: 'numeric', placeholder: 'EAN or ISBN-13', value: wanted });
  root.append(
    inlineForm([field('Search by EAN/ISBN', search)], 'Search', () =>
      go({ section: 'offers', query: { ean: digits(search.value) } }),
    ),
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
  if (wanted) query.set('ean', wanted);
  const result = await api<Page<Offer>>('GET', `/offers?${query.toString()}`);
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const controls = new Map(rowsOf(result).map((o) => [o.id, offerActions(o)]));
  const of = (o: Offer) => controls.get(o.id) ?? offerActions(o);
  root.append(
    h('h2', {}, wanted ? `Offers for ${wanted}` : 'Offers'),
    table<Offer>(
      rowsOf(result),
      [
        ['Identifier', (o) => h('code', { className: 'id identifier', title: `offer id ${o.id}` }, o.identifier)],
        ['EAN', (o) => h('span', { className: 'id' }, o.ean)],
        ['Seller price', (o) => of(o).cell()],
        ['Buyer pays', (o) => euro(o.price)],
        ['Condition', (o) => o.condition],
        ['Status', (o) => stateBadge('offer', o.status)],
        ['Updated', (o) => when(o.updatedAt)],
        [
          'Actions',
          (o) => {
            const c = of(o);
            return [
              c.next,
              button('Set status', c.setStatus),
              c.withdraw === null ? null : button('Withdraw', c.withdraw),
              button('Delete', c.remove, 'danger'),
            ];
          },
          'actions',
        ],
      ],
      wanted
        ? 'No offer for this EAN. Create one above.'
        : 'No offers yet. Create one above or import a CSV with npx shelfmark offers import.',
    ),
  );
}
