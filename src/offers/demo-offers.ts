/**
 * Demo offers for a first start: second-hand copies of the demo lists' school books
 * (lml/demo-books.ts). A few are draft, reserved, sold or withdrawn so the public API visibly hides
 * them; Geschiedeniswerkplaats has no published offer at all.
 */
import type { Initiator } from '../audit/initiator.js';
import { DEMO_BOOKS } from '../lml/demo-books.js';
import type { CreateOfferInput, OfferService } from './service.js';

export const DEMO_EANS: readonly string[] = DEMO_BOOKS.map((book) => book.ean);

/** Two EANs with published offers, for the README's curl example. */
export const DEMO_QUERY_EANS = ['9789001891442', '9780194837125'] as const;

export const DEMO_OFFERS: readonly CreateOfferInput[] = [
  { ean: '9789001891442', price: 12.5, condition: 'good', remarks: 'Name on the first page' },
  { ean: '9789001891442', price: 17.95, condition: 'excellent', remarks: null },
  { ean: '9789001891442', price: 8, condition: 'acceptable', remarks: 'Answers pencilled in chapter 3, erasable' },
  { ean: '9789001891442', price: 15, condition: 'good', remarks: null, status: 'sold' },
  { ean: '9789034523716', price: 14.25, condition: 'excellent', remarks: 'Used for one term' },
  { ean: '9789034523716', price: 9.99, condition: 'good', remarks: null },
  { ean: '9789034523716', price: 11, condition: 'good', remarks: null, status: 'reserved' },
  { ean: '9789001798802', price: 7.5, condition: 'good', remarks: 'Cover slightly bent' },
  { ean: '9789001798802', price: 6, condition: 'acceptable', remarks: 'Some highlighting' },
  { ean: '9789001865122', price: 19.5, condition: 'excellent', remarks: 'As new, still in foil' },
  { ean: '9789001865122', price: 13.75, condition: 'good', remarks: null },
  { ean: '9789001774363', price: 10, condition: 'good', remarks: 'Not yet checked', status: 'draft' },
  { ean: '9789001774363', price: 12, condition: 'excellent', remarks: null, status: 'sold' },
  { ean: '9789034519832', price: 16.4, condition: 'good', remarks: null },
  { ean: '9789034519832', price: 11.9, condition: 'acceptable', remarks: 'Water stain on the back cover' },
  { ean: '9789034519832', price: 18, condition: 'excellent', remarks: null, status: 'withdrawn' },
  { ean: '9789020827163', price: 9.5, condition: 'good', remarks: null },
  { ean: '9789020827163', price: 12.95, condition: 'excellent', remarks: 'Includes the unused online code' },
  { ean: '9780194837125', price: 14.5, condition: 'excellent', remarks: null },
  { ean: '9780194837125', price: 10.75, condition: 'good', remarks: 'A few notes in the margins' },
  { ean: '9780194837125', price: 7.25, condition: 'acceptable', remarks: 'Spine worn' },
  { ean: '9781108740623', price: 21, condition: 'excellent', remarks: null },
  { ean: '9781108740623', price: 15.5, condition: 'good', remarks: 'Exercises done in pencil' },
  { ean: '9781108740623', price: 16, condition: 'good', remarks: null, status: 'draft' },
  { ean: '9798885123044', price: 18.99, condition: 'good', remarks: 'US edition' },
];

/** Creates the demo offers through the service, so they pass the same rules as the operator's. */
export async function seedDemoOffers({ offers }: { offers: OfferService }, by: Initiator): Promise<number> {
  for (const offer of DEMO_OFFERS) await offers.create(offer, by);
  return DEMO_OFFERS.length;
}
