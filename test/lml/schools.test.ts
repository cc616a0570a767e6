import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { createSchool, eventRow, HEX32, takeEvents } from './support.js';

describeEachEngine('admin schools', (engine) => {
  const h = useHarness(engine);

  const created = '2026-09-01T08:00:00.000Z';

  it('POST /schools → 201 with the exact body, the row and one school.created event', async () => {
    const response = await h.asAdmin().post('/api/admin/v1/schools', {
      name: '  Hogeschool van Amsterdam ',
      type: 'HBO',
      location: 'Amsterdam',
      brin: '28dn',
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(body.identifier).toMatch(HEX32);
    expect(response.body).toBe(
      JSON.stringify({
        identifier: body.identifier,
        name: 'Hogeschool van Amsterdam',
        type: 'HBO',
        location: 'Amsterdam',
        brin: '28DN',
        createdAt: created,
        updatedAt: created,
      }),
    );
    const rows = await h.database.db.kysely.selectFrom('schools').selectAll().execute();
    expect(rows).toEqual([
      {
        identifier: body.identifier,
        name: 'Hogeschool van Amsterdam',
        type: 'HBO',
        location: 'Amsterdam',
        brin: '28DN',
        created_at: h.clock.now(),
        updated_at: h.clock.now(),
      },
    ]);
    expect(await takeEvents(h)).toEqual([eventRow('school.created', 'created', body.identifier)]);
  });

  it('optional fields default to null', async () => {
    const school = await createSchool(h, { name: 'ROC Midden Nederland', type: 'MBO' });
    const response = await h.asAdmin().get(`/api/admin/v1/schools/${school.identifier}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      identifier: school.identifier,
      name: 'ROC Midden Nederland',
      type: 'MBO',
      location: null,
      brin: null,
      createdAt: created,
      updatedAt: created,
    });
  });

  it('PATCH changes the given fields, bumps updatedAt and emits school.modified', async () => {
    const school = await createSchool(h, { location: 'Utrecht' });
    await takeEvents(h);
    h.clock.advance(60_000);
    const response = await h.asAdmin().patch(`/api/admin/v1/schools/${school.identifier}`, {
      name: 'HU University of Applied Sciences',
      location: null,
      brin: '30GB',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      identifier: school.identifier,
      name: 'HU University of Applied Sciences',
      type: 'HBO',
      location: null,
      brin: '30GB',
      createdAt: created,
      updatedAt: '2026-09-01T08:01:00.000Z',
    });
    const row = await h.database.db.kysely
      .selectFrom('schools')
      .selectAll()
      .where('identifier', '=', school.identifier)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: 'HU University of Applied Sciences',
      location: null,
      brin: '30GB',
      updated_at: h.clock.now(),
    });
    expect(await takeEvents(h)).toEqual([eventRow('school.modified', 'modified', school.identifier)]);
  });

  it('an identical PATCH answers 200 unchanged and emits nothing', async () => {
    const school = await createSchool(h, { location: 'Utrecht' });
    await takeEvents(h);
    h.clock.advance(60_000);
    const response = await h.asAdmin().patch(`/api/admin/v1/schools/${school.identifier}`, {
      name: 'Hogeschool Utrecht',
      type: 'HBO',
      location: ' Utrecht ',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().updatedAt).toBe(created);
    expect(await takeEvents(h)).toEqual([]);
    const row = await h.database.db.kysely.selectFrom('schools').select('updated_at').executeTakeFirstOrThrow();
    expect(row.updated_at).toBe(Date.parse(created));
  });

  it.each([
    ['bad type', { name: 'X', type: 'UNI' }, '/type'],
    ['lower-case type', { name: 'X', type: 'hbo' }, '/type'],
    ['missing name', { type: 'HBO' }, '/'],
    ['empty name', { name: '', type: 'HBO' }, '/name'],
    ['bad brin', { name: 'X', type: 'HBO', brin: '27-Z' }, '/brin'],
    ['unknown field', { name: 'X', type: 'HBO', website: 'https://x.nl' }, '/'],
  ])('POST with %s → 400 validation-failed, nothing stored', async (_name, body, path) => {
    const response = await h.asAdmin().post('/api/admin/v1/schools', body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const problem = response.json();
    expect(problem).toMatchObject({ type: '/problems/validation-failed', status: 400, code: 'validation-failed' });
    expect(problem.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect(await h.database.db.kysely.selectFrom('schools').selectAll().execute()).toEqual([]);
    expect(await takeEvents(h)).toEqual([]);
  });

  it('a blank name (only spaces) → 400 naming the field', async () => {
    const response = await h.asAdmin().post('/api/admin/v1/schools', { name: '   ', type: 'VO' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation-failed',
      detail: 'body name must not be blank',
      errors: [{ location: 'body', path: '/name', message: 'must not be blank' }],
    });
  });

  it('PATCH with a bad type or an empty body → 400 and the row is unchanged', async () => {
    const school = await createSchool(h);
    await takeEvents(h);
    for (const body of [{ type: 'KINDERGARTEN' }, {}, { identifier: 'f'.repeat(32) }]) {
      const response = await h.asAdmin().patch(`/api/admin/v1/schools/${school.identifier}`, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('validation-failed');
    }
    expect(await h.database.db.kysely.selectFrom('schools').select(['name', 'type']).execute()).toEqual([
      { name: 'Hogeschool Utrecht', type: 'HBO' },
    ]);
    expect(await takeEvents(h)).toEqual([]);
  });

  it('unknown school → 404 on GET and PATCH', async () => {
    for (const identifier of ['0'.repeat(32), 'not-an-identifier']) {
      const get = await h.asAdmin().get(`/api/admin/v1/schools/${identifier}`);
      expect(get.statusCode).toBe(404);
      expect(get.json()).toMatchObject({ code: 'not-found', detail: `school ${identifier} was not found` });
      const patch = await h.asAdmin().patch(`/api/admin/v1/schools/${identifier}`, { name: 'X' });
      expect(patch.statusCode).toBe(404);
    }
    expect(await takeEvents(h)).toEqual([]);
  });

  it('without the admin token → 401 and nothing stored', async () => {
    const response = await h.anonymous().post('/api/admin/v1/schools', { name: 'X', type: 'HBO' });
    expect(response.statusCode).toBe(401);
    const wrong = await h
      .anonymous()
      .post('/api/admin/v1/schools', { name: 'X', type: 'HBO' }, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(await h.database.db.kysely.selectFrom('schools').selectAll().execute()).toEqual([]);
  });
});
