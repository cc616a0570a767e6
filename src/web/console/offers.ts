/**
 * Offers: search by EAN (in the address, /dashboard/offers?ean=…), create, and per offer its
 * identifier (the one its events carry), a status change, a price change in place, Withdraw and
 * Delete. Conditions and statuses come from offers/model.ts.
 */
import { OFFER_CONDITIONS, OFFER_STATUSES } from '../../offers/model.js';
import type { AdminOffer } from '../../offers/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { h } from '../common/dom.js';
import { euro, t, word } from '../common/i18n.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { button, confirmThen, empty, field, inlineForm, select, table } from '../common/widgets.js';
import { act, api, go, state } from './app.js';

type Offer = AdminOffer;

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
    'aria-label': t('offers.newPrice', { id: o.identifier }),
  });
  const holder = h('span', { className: 'price-edit' });
  const save = async () => {
    const price = Number(input.value.replace(',', '.'));
    await act<Offer>(
      t('offers.changePrice', { offer: short(o) }),
      'PATCH',
      `/offers/${o.id}`,
      { price },
      { done: (changed) => t('offers.priceChanged', { offer: short(changed), price: euro(changed.sellerPrice) }) },
    );
  };
  const form = inlineForm([input], t('offers.savePrice'), save);
  form.append(button(t('common.cancel'), () => holder.replaceWith(cell())));
  holder.append(form);
  return holder;
}

function offerActions(o: Offer) {
  const next = select(OFFER_STATUSES, o.status, t('offers.newStatus', { id: o.identifier }));
  const setStatus = () =>
    act<Offer>(
      t('offers.setStatusLabel', { offer: short(o), status: next.value }),
      'PATCH',
      `/offers/${o.id}`,
      { status: next.value },
      { done: (changed) => t('offers.statusSet', { offer: short(changed), status: changed.status }) },
    );
  const withdraw = () =>
    act(
      t('offers.withdrawLabel', { offer: short(o) }),
      'PATCH',
      `/offers/${o.id}`,
      { status: 'withdrawn' },
      { done: () => t('offers.withdrawn', { offer: short(o) }) },
    );
  const remove = confirmThen(t('offers.deleteQuestion', { id: o.identifier, ean: o.ean }), () =>
    act(t('offers.deleteLabel', { offer: short(o) }), 'DELETE', `/offers/${o.id}`, undefined, {
      done: () => t('offers.deleted', { offer: short(o) }),
    }),
  );
  const cell: () => HTMLElement = () => {
    const edit = button(t('offers.editPrice'), () => wrap.replaceWith(priceEditor(o, cell)));
    const wrap = h('span', { className: 'price' }, [euro(o.sellerPrice), ' ', edit]);
    return wrap;
  };
  const open = o.status !== 'withdrawn' && o.status !== 'sold';
  return { next, setStatus, withdraw: open ? withdraw : null, remove, cell };
}

export async function offers(root: HTMLElement): Promise<void> {
  const wanted = state.query.ean ?? '';
  root.append(h('h1', {}, t('offers.title')));
  const search = h('input', {
    name: 'ean',
    inputmode: 'numeric',
    placeholder: t('offers.searchPlaceholder'),
    value: wanted,
  });
  root.append(
    inlineForm([field(t('offers.search'), search)], t('offers.searchButton'), () =>
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
  const conditions = OFFER_CONDITIONS.map((c) => [c, word('conditions', c)] as const);
  const condition = select(conditions, 'good', t('offers.condition'));
  const status = select(OFFER_STATUSES, 'published', t('common.status'));
  const create = () =>
    act<Offer>(
      t('offers.create'),
      'POST',
      '/offers',
      { ean: digits(ean.value), price: Number(price.value), condition: condition.value, status: status.value },
      { done: (created) => t('offers.created', { offer: short(created) }) },
    );
  const fields = [
    field(t('item.eanIsbn'), ean),
    field(t('offers.sellerPriceField'), price),
    field(t('offers.condition'), condition),
    field(t('common.status'), status),
  ];
  root.append(h('h2', {}, t('offers.new')), inlineForm(fields, t('offers.create'), create));
  const query = new URLSearchParams({ limit: '100' });
  if (wanted) query.set('ean', wanted);
  const result = await api<Page<Offer>>('GET', `/offers?${query.toString()}`);
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const controls = new Map(rowsOf(result).map((o) => [o.id, offerActions(o)]));
  const of = (o: Offer) => controls.get(o.id) ?? offerActions(o);
  root.append(
    h('h2', {}, wanted ? t('offers.for', { ean: wanted }) : t('offers.title')),
    table<Offer>(
      rowsOf(result),
      [
        [
          t('common.identifier'),
          (o) =>
            h('code', { className: 'id identifier', title: t('offers.offerId', { id: String(o.id) }) }, o.identifier),
        ],
        [t('item.ean'), (o) => h('span', { className: 'id' }, o.ean)],
        [t('offers.sellerPrice'), (o) => of(o).cell()],
        [t('offers.buyerPays'), (o) => euro(o.price)],
        [t('offers.condition'), (o) => word('conditions', o.condition)],
        [t('common.status'), (o) => stateBadge('offer', o.status)],
        [t('common.updatedColumn'), (o) => when(o.updatedAt)],
        [
          t('common.actions'),
          (o) => {
            const c = of(o);
            return [
              c.next,
              button(t('offers.setStatus'), c.setStatus),
              c.withdraw === null ? null : button(t('offers.withdraw'), c.withdraw),
              button(t('common.delete'), c.remove, 'danger'),
            ];
          },
          'actions',
        ],
      ],
      wanted ? t('offers.noneForEan') : t('offers.none'),
    ),
  );
}
