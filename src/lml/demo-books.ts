/**
 * The school books of the demo lists, on realistic-looking ISBN-13s (valid check digits,
 * publisher-style prefixes; not real catalogue numbers). The demo offers price them (offers/demo-offers.ts).
 */
export const DEMO_BOOKS = [
  { ean: '9789001891442', title: 'Getal & Ruimte 12e ed. wiskunde B vwo 4 deel 1' },
  { ean: '9789034523716', title: 'Nova Natuurkunde 3 havo/vwo' },
  { ean: '9789001798802', title: 'Stepping Stones 6e ed. 2 havo/vwo textbook' },
  { ean: '9789001865122', title: 'Nieuw Nederlands 7e ed. 4 vwo' },
  { ean: '9789001774363', title: 'Geschiedeniswerkplaats 4e ed. 3 vwo' },
  { ean: '9789034519832', title: 'Biologie voor jou 4 havo' },
  { ean: '9789020827163', title: 'Pincode economie 4 havo' },
  { ean: '9780194837125', title: "Solutions Intermediate Student's Book" },
  { ean: '9781108740623', title: 'English Grammar in Use, fifth edition' },
  { ean: '9798885123044', title: 'AP Calculus AB Practice Workbook' },
] as const;
