/**
 * Demo schools and learning-material lists for a first start: fictional Dutch schools of three kinds,
 * lists tagged location → school year → academy/stream so the structure tree has depth, in every
 * status (one archived, hidden from the collection). Created through the services, so the seed passes
 * the same rules as the operator and its events are in the outbox like any other change.
 */
import type { Initiator } from '../audit/initiator.js';
import { DEMO_BOOKS } from './demo-books.js';
import type { ListItemInput } from './items.js';
import type { ListService } from './list-service.js';
import type { SchoolService } from './school-service.js';
import type { ListStatus } from './status.js';

const book = (ean: string): ListItemInput => {
  const found = DEMO_BOOKS.find((candidate) => candidate.ean === ean);
  if (found === undefined) throw new Error(`demo book ${ean} is missing`);
  return { ean: found.ean, title: found.title };
};

/** Extra titles for the HBO and MBO lists: valid ISBN-13 check digits, not real catalogue numbers. */
const HBO_ICT: ListItemInput[] = [
  {
    ean: '9789043036801',
    title: 'Computernetwerken, een praktische inleiding',
    author: 'P. de Boer',
    publisher: 'Pearson Benelux',
  },
  { ean: '9789006951219', title: 'Programmeren in Java, deel 1', author: 'M. Jansen', publisher: 'ThiemeMeulenhoff' },
  { ...book('9781108740623'), remarks: 'Also used in year 2' },
  {
    ean: '9789001234560',
    title: 'Discrete wiskunde voor informatici',
    mandatory: false,
    remarks: 'Recommended, not required',
  },
];

interface DemoList {
  school: number;
  name: string;
  tags: string[];
  schoolYear: number;
  duoCode?: string;
  comment?: string;
  items: ListItemInput[];
  /** Statuses to walk through after creation, in order. */
  path: ListStatus[];
}

const DEMO_SCHOOLS = [
  { name: 'Hogeschool Amstelland', type: 'HBO', location: 'Amsterdam', brin: '30AM' },
  { name: 'ROC Vijf Rivieren', type: 'MBO', location: 'Nijmegen', brin: '25RV' },
  { name: 'Erasmus Lyceum Zuid', type: 'VO', location: 'Rotterdam', brin: '14EL' },
] as const;

const DEMO_LISTS: readonly DemoList[] = [
  {
    school: 0,
    name: 'HBO-ICT propedeuse',
    tags: ['Amsterdam', '2026-2027', 'Academie ICT & Media'],
    schoolYear: 2026,
    duoCode: '30020',
    comment: 'Order before the introduction week; the e-books are in the learning environment.',
    items: HBO_ICT,
    path: ['validated', 'published'],
  },
  {
    school: 0,
    name: 'Bedrijfskunde jaar 1',
    tags: ['Amsterdam', '2026-2027', 'Academie Business & Economie'],
    schoolYear: 2026,
    duoCode: '34035',
    items: [book('9789020827163'), { ...book('9781108740623'), mandatory: false }],
    path: ['validated'],
  },
  {
    school: 0,
    name: 'HBO-ICT propedeuse',
    tags: ['Amsterdam', '2025-2026', 'Academie ICT & Media'],
    schoolYear: 2025,
    duoCode: '30020',
    items: HBO_ICT.slice(0, 3),
    path: ['published', 'archived'],
  },
  {
    school: 1,
    name: 'Software developer niveau 4, leerjaar 1',
    tags: ['Nijmegen', '2026-2027', 'Techniek & ICT'],
    schoolYear: 2026,
    duoCode: '25604',
    items: [
      { ean: '9789401487788', title: 'Basisboek programmeren', publisher: 'Boom beroepsonderwijs' },
      book('9780194837125'),
    ],
    path: ['published'],
  },
  // The priced-list demo (GET /api/v1/lists/{identifier}/offers): offers at several prices and conditions,
  // and one optional item (Geschiedeniswerkplaats) without a published offer.
  {
    school: 2,
    name: 'vwo 4',
    tags: ['2026-2027', 'vwo'],
    schoolYear: 2026,
    items: [
      book('9789001891442'),
      book('9789001865122'),
      book('9780194837125'),
      { ...book('9789001774363'), mandatory: false, remarks: 'Only for the history profile' },
    ],
    path: ['published'],
  },
  {
    school: 2,
    name: 'havo 4',
    tags: ['2026-2027', 'havo'],
    schoolYear: 2026,
    items: [book('9789034519832'), book('9789020827163'), book('9789034523716')],
    path: [],
  },
];

export async function seedDemoLml(
  {
    schools: schoolService,
    lists: listService,
  }: {
    schools: SchoolService;
    lists: ListService;
  },
  by: Initiator,
): Promise<{ schools: number; lists: number }> {
  const schools = [];
  for (const school of DEMO_SCHOOLS) schools.push(await schoolService.create(school, by));
  for (const demo of DEMO_LISTS) {
    const school = schools[demo.school];
    if (school === undefined) throw new Error(`demo school ${demo.school} is missing`);
    const { path, school: _index, ...content } = demo;
    const list = await listService.create({ ...content, school: school.identifier }, by);
    for (const status of path) await listService.changeStatus(list.identifier, status, by);
  }
  return { schools: DEMO_SCHOOLS.length, lists: DEMO_LISTS.length };
}
