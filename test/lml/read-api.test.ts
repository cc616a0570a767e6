import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { createList, createSchool, setStatus } from './support.js';

describeEachEngine('LML read API', (engine) => {
  const h = useHarness(engine, { client: { name: 'Reader', scopes: ['lml:read'] } });

  const get = (url: string, headers: Record<string, string> = h.client.bearer) => h.anonymous().get(url, { headers });
  /** Creates with one second between them, so the (oldest first) order is the creation order. */
  const schoolsInOrder = async (count: number) => {
    const created = [];
    for (let i = 0; i < count; i++) {
      created.push(await createSchool(h, { name: `School ${i}`, type: 'VO' }));
      h.clock.advance(1000);
    }
    return created;
  };

  it('GET /schools pages oldest first with has_more and starting_after', async () => {
    const [a, b, c] = await schoolsInOrder(3);
    const first = await get('/api/lml/v1/schools?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      has_more: true,
      data: [
        {
          identifier: a?.identifier,
          name: 'School 0',
          type: 'VO',
          location: null,
          brin: null,
          createdAt: '2026-09-01T08:00:00.000Z',
          updatedAt: '2026-09-01T08:00:00.000Z',
        },
        {
          identifier: b?.identifier,
          name: 'School 1',
          type: 'VO',
          location: null,
          brin: null,
          createdAt: '2026-09-01T08:00:01.000Z',
          updatedAt: '2026-09-01T08:00:01.000Z',
        },
      ],
    });
    const second = await get(`/api/lml/v1/schools?limit=2&starting_after=${b?.identifier}`);
    expect(second.json()).toMatchObject({ has_more: false, data: [{ identifier: c?.identifier }] });
    const all = await get('/api/lml/v1/schools');
    expect(all.json().data).toHaveLength(3);
    expect(all.json().has_more).toBe(false);
  });

  it('paging survives equal timestamps (ties are broken by identifier)', async () => {
    for (let i = 0; i < 5; i++) await createSchool(h, { name: `Same time ${i}` });
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const page = (await get(`/api/lml/v1/schools?limit=2${cursor}`)).json<{
        has_more: boolean;
        data: { identifier: string }[];
      }>();
      seen.push(...page.data.map((school) => school.identifier));
      if (!page.has_more) break;
      cursor = `&starting_after=${page.data.at(-1)?.identifier}`;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([...seen].sort());
  });

  it.each([
    ['limit=0', 'validation-failed'],
    ['limit=201', 'validation-failed'],
    ['limit=ten', 'validation-failed'],
    [`starting_after=${'b'.repeat(32)}`, 'validation-failed'],
    ['starting_after=nope', 'validation-failed'],
  ])('GET /schools?%s → 400 %s', async (query, code) => {
    const response = await get(`/api/lml/v1/schools?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe(code);
  });

  // One rule for unknown query parameters on every route: ignored.
  it.each(['sort=name', '_=1', 'utm_source=x&limit=1'])(
    'GET /schools?%s → 200, the unknown parameter ignored',
    async (query) => {
      const response = await get(`/api/lml/v1/schools?${query}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ has_more: false, data: [] });
    },
  );

  it('GET /schools/:identifier → the school; unknown → 404', async () => {
    const school = await createSchool(h, {
      name: 'Stedelijk Gymnasium Leiden',
      type: 'VO',
      location: 'Leiden',
      brin: '16ZO',
    });
    const response = await get(`/api/lml/v1/schools/${school.identifier}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(
      JSON.stringify({
        identifier: school.identifier,
        name: 'Stedelijk Gymnasium Leiden',
        type: 'VO',
        location: 'Leiden',
        brin: '16ZO',
        createdAt: '2026-09-01T08:00:00.000Z',
        updatedAt: '2026-09-01T08:00:00.000Z',
      }),
    );
    const missing = await get(`/api/lml/v1/schools/${'c'.repeat(32)}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'not-found', detail: `school ${'c'.repeat(32)} was not found` });
  });

  it('GET /lists leaves archived lists out unless status=archived is asked for', async () => {
    const school = await createSchool(h);
    const draft = await createList(h, school.identifier, { name: 'Concept' });
    h.clock.advance(1000);
    const published = await createList(h, school.identifier, { name: 'Gepubliceerd' });
    await setStatus(h, published.identifier, 'published');
    h.clock.advance(1000);
    const archived = await createList(h, school.identifier, { name: 'Oud' });
    await setStatus(h, archived.identifier, 'archived');

    const names = async (query: string) =>
      (await get(`/api/lml/v1/lists${query}`)).json<{ data: { name: string }[] }>().data.map((list) => list.name);
    expect(await names('')).toEqual(['Concept', 'Gepubliceerd']);
    expect(await names('?status=archived')).toEqual(['Oud']);
    expect(await names('?status=published')).toEqual(['Gepubliceerd']);
    expect(await names('?status=concept')).toEqual(['Concept']);
    expect(await names(`?school=${school.identifier}`)).toEqual(['Concept', 'Gepubliceerd']);
    expect(await names(`?school=${'d'.repeat(32)}`)).toEqual([]);
    const page = await get('/api/lml/v1/lists?limit=1');
    expect(page.json()).toMatchObject({ has_more: true, data: [{ identifier: draft.identifier, status: 'created' }] });
    const next = await get(`/api/lml/v1/lists?limit=1&starting_after=${draft.identifier}`);
    expect(next.json()).toMatchObject({
      has_more: false,
      data: [{ identifier: published.identifier, status: 'published' }],
    });
  });

  it('GET /lists with a bad filter → 400', async () => {
    for (const query of ['status=gone', 'school=abc', `starting_after=${'e'.repeat(32)}`]) {
      const response = await get(`/api/lml/v1/lists?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('validation-failed');
    }
  });

  it('GET /lists/:identifierOrSlug finds by identifier and by slug, archived ones too; unknown → 404', async () => {
    const school = await createSchool(h);
    const list = await createList(h, school.identifier, { tags: ['Utrecht'] });
    const byId = await get(`/api/lml/v1/lists/${list.identifier}`);
    expect(byId.statusCode).toBe(200);
    const admin = await h.asAdmin().get(`/api/admin/v1/lists/${list.identifier}`);
    expect(byId.body).toBe(admin.body);
    expect(byId.json()).toMatchObject({ breadcrumb: ['Hogeschool Utrecht', 'Utrecht', 'Propedeuse ICT'] });
    expect((await get(`/api/lml/v1/lists/${list.slug}`)).body).toBe(byId.body);
    expect((await get(`/api/lml/v1/lists/${list.slug.toLowerCase()}`)).body).toBe(byId.body);
    await setStatus(h, list.identifier, 'archived');
    const archived = await get(`/api/lml/v1/lists/${list.identifier}`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json().status).toBe('archived');
    for (const unknown of ['f'.repeat(32), 'BL000000', 'not a slug!']) {
      const response = await get(`/api/lml/v1/lists/${encodeURIComponent(unknown)}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('not-found');
    }
  });

  it('no token → 401, a garbled token → 401, a token without lml:read → 403', async () => {
    const offersOnly = await createClientWithToken(h, 'Shop', ['offers:read']);
    for (const url of [
      '/api/lml/v1/schools',
      `/api/lml/v1/schools/${'a'.repeat(32)}`,
      '/api/lml/v1/lists',
      '/api/lml/v1/lists/BL234567',
      '/api/lml/v1/structure',
    ]) {
      const anonymous = await get(url, {});
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="shelfmark"');
      expect((await get(url, { authorization: 'Bearer not.a.token' })).statusCode).toBe(401);
      const forbidden = await get(url, offersOnly.bearer);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ code: 'insufficient-scope', requiredScope: 'lml:read' });
    }
  });

  it('the admin token is not an LML token, and an LML token is not an admin token', async () => {
    expect((await get('/api/lml/v1/schools', h.admin)).statusCode).toBe(401);
    const response = await h.as(h.client).post('/api/admin/v1/schools', { name: 'X', type: 'VO' });
    expect(response.statusCode).toBe(401);
  });
});
