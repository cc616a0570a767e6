import { beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { createList, createSchool, EANS, eventRow, HEX32, takeEvents } from './support.js';

describeEachEngine('admin lists', (engine) => {
  const h = useHarness(engine);
  let school: { identifier: string; name: string };
  beforeEach(async () => {
    school = await createSchool(h, { name: 'Hogeschool Utrecht' });
    await takeEvents(h);
  });

  const created = '2026-09-01T08:00:00.000Z';
  const listsTable = () => h.database.db.kysely.selectFrom('lists').selectAll().execute();

  it('POST /lists → 201 with the exact body, the row, and list.created + list.status events', async () => {
    const basisboek = { ean: EANS[0], title: 'Basisboek ICT', author: 'J. de Vries', publisher: 'Noordhoff' };
    const response = await h.asAdmin().post('/api/admin/v1/lists', {
      school: school.identifier,
      name: 'Propedeuse HBO-ICT',
      comment: 'Koop de boeken voor 1 september',
      schoolYear: 2026,
      duoCode: '34479',
      tags: ['Utrecht', '2026-2027', 'Academie ICT'],
      imported: true,
      items: [
        { ...basisboek, remarks: 'Nieuwste druk' },
        { ean: ` ${EANS[1]} `, title: 'Programmeren in Python', mandatory: false },
      ],
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.identifier).toMatch(HEX32);
    expect(body.slug).toMatch(/^BL[2-9A-HJ-NP-Z]{6}$/);
    const expected = {
      identifier: body.identifier,
      slug: body.slug,
      name: 'Propedeuse HBO-ICT',
      comment: 'Koop de boeken voor 1 september',
      school: { identifier: school.identifier, name: 'Hogeschool Utrecht' },
      schoolYear: 2026,
      duoCode: '34479',
      breadcrumb: ['Hogeschool Utrecht', 'Utrecht', '2026-2027', 'Academie ICT', 'Propedeuse HBO-ICT'],
      status: 'created',
      imported: true,
      items: [
        { ...basisboek, mandatory: true, remarks: 'Nieuwste druk' },
        {
          ean: EANS[1],
          title: 'Programmeren in Python',
          author: null,
          publisher: null,
          mandatory: false,
          remarks: null,
        },
      ],
      createdAt: created,
      updatedAt: created,
    };
    // Exact bytes: the key order is part of the contract.
    expect(response.body).toBe(JSON.stringify(expected));
    expect(await listsTable()).toEqual([
      {
        identifier: body.identifier,
        slug: body.slug,
        school_identifier: school.identifier,
        name: 'Propedeuse HBO-ICT',
        comment: 'Koop de boeken voor 1 september',
        school_year: 2026,
        duo_code: '34479',
        tags: JSON.stringify(['Utrecht', '2026-2027', 'Academie ICT']),
        status: 'created',
        imported: 1,
        items: JSON.stringify(expected.items),
        created_at: h.clock.now(),
        updated_at: h.clock.now(),
      },
    ]);
    expect(await takeEvents(h)).toEqual([
      eventRow('list.created', 'created', body.identifier),
      eventRow('list.status', 'created', body.identifier),
    ]);
    const fetched = await h.asAdmin().get(`/api/admin/v1/lists/${body.identifier}`);
    expect(fetched.body).toBe(JSON.stringify(expected));
  });

  it('a minimal list has nulls, no tags, no items and imported false', async () => {
    const response = await h.asAdmin().post('/api/admin/v1/lists', { school: school.identifier, name: 'Leeg' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      comment: null,
      schoolYear: null,
      duoCode: null,
      breadcrumb: ['Hogeschool Utrecht', 'Leeg'],
      imported: false,
      items: [],
      status: 'created',
    });
  });

  it('slugs are unique: a colliding slug is replaced by a fresh one', async () => {
    const first = await createList(h, school.identifier);
    const { ListService } = await import('../../src/lml/list-service.js');
    const minted = [first.slug, first.slug, 'BLZZZZZZ'];
    const service = new ListService(h.database.db, h.services.work, h.clock, () => minted.shift() ?? 'BLYYYYYY');
    const second = await service.create({ school: school.identifier, name: 'Tweede' }, SYSTEM);
    expect(second.slug).toBe('BLZZZZZZ');
    expect((await listsTable()).map((row) => row.slug).sort()).toEqual([first.slug, 'BLZZZZZZ'].sort());
  });

  it('a duplicate slug is recognised as a slug collision on this engine (and only that)', async () => {
    const { isSlugCollision, ListStore } = await import('../../src/lml/list-store.js');
    const first = await createList(h, school.identifier);
    const [row] = await listsTable();
    if (row === undefined) throw new Error('no row');
    const store = new ListStore(h.database.db.kysely);
    const slugClash = await store.insert({ ...row, identifier: 'e'.repeat(32) }).catch((error: unknown) => error);
    expect(isSlugCollision(slugClash)).toBe(true);
    const identifierClash = await store.insert({ ...row, slug: 'BLNEWONE' }).catch((error: unknown) => error);
    expect(identifierClash).toBeInstanceOf(Error);
    expect(isSlugCollision(identifierClash)).toBe(false);
    expect((await listsTable()).map((list) => list.slug)).toEqual([first.slug]);
  });

  it.each([
    ['unknown school', (_s: string) => ({ school: '0'.repeat(32), name: 'X' }), 'validation-failed', '/school'],
    ['malformed school', (_s: string) => ({ school: 'abc', name: 'X' }), 'validation-failed', '/school'],
    ['missing name', (s: string) => ({ school: s }), 'validation-failed', '/'],
    ['unknown field', (s: string) => ({ school: s, name: 'X', status: 'published' }), 'validation-failed', '/'],
    [
      'bad item EAN',
      (s: string) => ({
        school: s,
        name: 'X',
        items: [
          { ean: EANS[0], title: 'ok' },
          { ean: '9789001234561', title: 'bad' },
        ],
      }),
      'invalid-ean',
      '/items/1/ean',
    ],
    [
      'letters in an EAN',
      (s: string) => ({ school: s, name: 'X', items: [{ ean: '97890012345AB', title: 'bad' }] }),
      'invalid-ean',
      '/items/0/ean',
    ],
    [
      'duplicate EAN',
      (s: string) => ({
        school: s,
        name: 'X',
        items: [
          { ean: EANS[0], title: 'a' },
          { ean: EANS[0], title: 'b' },
        ],
      }),
      'validation-failed',
      '/items/1/ean',
    ],
    [
      'item without title',
      (s: string) => ({ school: s, name: 'X', items: [{ ean: EANS[0] }] }),
      'validation-failed',
      '/items/0',
    ],
    [
      'unknown item field',
      (s: string) => ({ school: s, name: 'X', items: [{ ean: EANS[0], title: 'a', price: 3 }] }),
      'validation-failed',
      '/items/0',
    ],
    [
      'a year that is not a start year',
      (s: string) => ({ school: s, name: 'X', schoolYear: '2026-2027' }),
      'validation-failed',
      '/schoolYear',
    ],
    [
      'tags that are not strings',
      (s: string) => ({ school: s, name: 'X', tags: [{ name: 'Utrecht' }] }),
      'validation-failed',
      '/tags/0',
    ],
    ['a blank tag', (s: string) => ({ school: s, name: 'X', tags: ['Utrecht', '  '] }), 'validation-failed', '/tags/1'],
  ])('POST with %s → 400 %s, nothing stored, no event', async (_name, body, code, path) => {
    const response = await h.asAdmin().post('/api/admin/v1/lists', body(school.identifier));
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const problem = response.json();
    expect(problem.code).toBe(code);
    expect(problem.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect(await listsTable()).toEqual([]);
    expect(await takeEvents(h)).toEqual([]);
  });

  it('a bad EAN is named with its position and reason', async () => {
    const response = await h.asAdmin().post('/api/admin/v1/lists', {
      school: school.identifier,
      name: 'X',
      items: [{ ean: '9789001234561', title: 'bad' }],
    });
    expect(response.json()).toMatchObject({
      status: 400,
      code: 'invalid-ean',
      detail: 'invalid item EAN: items/0/ean 9789001234561: check digit should be 0',
      invalidEans: [{ ean: '9789001234561', reason: 'check digit should be 0' }],
    });
  });

  it('more than 500 items → 400; exactly 500 is accepted', async () => {
    const item = (index: number) => ({ ean: eanOf(index, '978900'), title: `Boek ${index}` });
    const tooMany = await h.asAdmin().post('/api/admin/v1/lists', {
      school: school.identifier,
      name: 'Te veel',
      items: Array.from({ length: 501 }, (_v, i) => item(i)),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({
      code: 'validation-failed',
      errors: [{ path: '/items', message: 'must NOT have more than 500 items' }],
    });
    expect(await listsTable()).toEqual([]);
    const exactly = await h.asAdmin().post('/api/admin/v1/lists', {
      school: school.identifier,
      name: 'Precies genoeg',
      items: Array.from({ length: 500 }, (_v, i) => item(i)),
    });
    expect(exactly.statusCode).toBe(201);
    expect(exactly.json().items).toHaveLength(500);
  });

  it('PATCH changes content, rebuilds the breadcrumb and emits list.updated', async () => {
    const list = await createList(h, school.identifier, { tags: ['Utrecht'] });
    await takeEvents(h);
    h.clock.advance(1000);
    const response = await h.asAdmin().patch(`/api/admin/v1/lists/${list.identifier}`, {
      name: 'Jaar 1 ICT',
      tags: ['Utrecht', '2026-2027'],
      comment: 'Nieuw',
      items: [{ ean: EANS[2], title: 'Netwerken', mandatory: false }],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      identifier: list.identifier,
      slug: list.slug,
      name: 'Jaar 1 ICT',
      comment: 'Nieuw',
      breadcrumb: ['Hogeschool Utrecht', 'Utrecht', '2026-2027', 'Jaar 1 ICT'],
      status: 'created',
      items: [{ ean: EANS[2], title: 'Netwerken', author: null, publisher: null, mandatory: false, remarks: null }],
      createdAt: created,
      updatedAt: '2026-09-01T08:00:01.000Z',
    });
    const [row] = await listsTable();
    expect(row).toMatchObject({
      name: 'Jaar 1 ICT',
      tags: '["Utrecht","2026-2027"]',
      comment: 'Nieuw',
      updated_at: h.clock.now(),
    });
    expect(await takeEvents(h)).toEqual([eventRow('list.updated', 'updated', list.identifier)]);
  });

  it('a PATCH that changes nothing answers 200 unchanged and emits nothing', async () => {
    const list = await createList(h, school.identifier, { tags: ['Utrecht'], comment: 'c' });
    await takeEvents(h);
    h.clock.advance(1000);
    const response = await h.asAdmin().patch(`/api/admin/v1/lists/${list.identifier}`, {
      name: 'Propedeuse ICT',
      tags: [' Utrecht'],
      comment: 'c',
      items: [{ ean: EANS[0], title: 'Basisboek ICT', mandatory: true, author: null }],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().updatedAt).toBe(created);
    expect(await takeEvents(h)).toEqual([]);
    expect((await listsTable())[0]?.updated_at).toBe(Date.parse(created));
  });

  it.each([
    ['a bad item EAN', { items: [{ ean: '123', title: 'x' }] }, 'invalid-ean'],
    ['the school', { school: '0'.repeat(32) }, 'validation-failed'],
    ['the status', { status: 'published' }, 'validation-failed'],
    ['nothing', {}, 'validation-failed'],
  ])('PATCH with %s → 400 %s and the list is unchanged', async (_name, body, code) => {
    const list = await createList(h, school.identifier);
    const before = await listsTable();
    await takeEvents(h);
    const response = await h.asAdmin().patch(`/api/admin/v1/lists/${list.identifier}`, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe(code);
    expect(await listsTable()).toEqual(before);
    expect(await takeEvents(h)).toEqual([]);
  });

  it('unknown list → 404 on GET, PATCH and status', async () => {
    const id = 'a'.repeat(32);
    expect((await h.asAdmin().get(`/api/admin/v1/lists/${id}`)).statusCode).toBe(404);
    const patch = await h.asAdmin().patch(`/api/admin/v1/lists/${id}`, { name: 'X' });
    expect(patch.statusCode).toBe(404);
    expect(patch.json()).toMatchObject({ code: 'not-found', detail: `list ${id} was not found` });
    expect((await h.asAdmin().post(`/api/admin/v1/lists/${id}/status`, { status: 'published' })).statusCode).toBe(404);
    expect(await takeEvents(h)).toEqual([]);
  });
});
