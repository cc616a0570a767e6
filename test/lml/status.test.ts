import { beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { createList, createSchool, eventRow, setStatus, takeEvents } from './support.js';

describeEachEngine('list status', (engine) => {
  const h = useHarness(engine);
  let list: { identifier: string; slug: string };
  beforeEach(async () => {
    const school = await createSchool(h);
    list = await createList(h, school.identifier);
    await takeEvents(h);
  });

  const statusRow = async () =>
    await h.database.db.kysely
      .selectFrom('lists')
      .select(['status', 'updated_at'])
      .where('identifier', '=', list.identifier)
      .executeTakeFirstOrThrow();
  const statusEvent = (type: string) => eventRow('list.status', type, list.identifier);
  const publishedEvent = () => eventRow('list.published', 'published', list.identifier);

  it('publish → 200 with the list, the row changes, list.status + list.published are recorded', async () => {
    h.clock.advance(5000);
    const response = await setStatus(h, list.identifier, 'published');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      identifier: list.identifier,
      slug: list.slug,
      status: 'published',
      updatedAt: '2026-09-01T08:00:05.000Z',
    });
    expect(await statusRow()).toEqual({ status: 'published', updated_at: h.clock.now() });
    expect(await takeEvents(h)).toEqual([publishedEvent(), statusEvent('published')]);
  });

  it('walks the whole lifecycle created → validated → published → archived → created', async () => {
    for (const status of ['validated', 'published', 'archived', 'created']) {
      const response = await setStatus(h, list.identifier, status);
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe(status);
      expect(await takeEvents(h)).toEqual(
        status === 'published' ? [publishedEvent(), statusEvent('published')] : [statusEvent(status)],
      );
    }
  });

  it('back-steps validated → created and published → validated are allowed', async () => {
    expect((await setStatus(h, list.identifier, 'validated')).statusCode).toBe(200);
    expect((await setStatus(h, list.identifier, 'created')).statusCode).toBe(200);
    expect((await setStatus(h, list.identifier, 'published')).statusCode).toBe(200);
    expect((await setStatus(h, list.identifier, 'validated')).statusCode).toBe(200);
    expect((await statusRow()).status).toBe('validated');
  });

  it('concept is accepted as created and answered as created', async () => {
    await setStatus(h, list.identifier, 'validated');
    await takeEvents(h);
    const response = await setStatus(h, list.identifier, 'concept');
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('created');
    expect((await statusRow()).status).toBe('created');
    expect(await takeEvents(h)).toEqual([statusEvent('created')]);
  });

  it('the same status again is a 200 no-op without event or timestamp change', async () => {
    h.clock.advance(1000);
    for (const word of ['created', 'concept']) {
      const response = await setStatus(h, list.identifier, word);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'created', updatedAt: '2026-09-01T08:00:00.000Z' });
    }
    await setStatus(h, list.identifier, 'published');
    await takeEvents(h);
    const again = await setStatus(h, list.identifier, 'published');
    expect(again.statusCode).toBe(200);
    expect(await takeEvents(h)).toEqual([]);
  });

  it.each([
    [
      ['validated'],
      'archived',
      'the list is validated and cannot become archived; allowed: published, created',
      ['published', 'created'],
    ],
    [['archived'], 'published', 'the list is archived and cannot become published; allowed: created', ['created']],
    [['archived'], 'validated', 'the list is archived and cannot become validated; allowed: created', ['created']],
    [
      ['published'],
      'created',
      'the list is published and cannot become created; allowed: archived, validated',
      ['archived', 'validated'],
    ],
    [
      ['published'],
      'concept',
      'the list is published and cannot become created; allowed: archived, validated',
      ['archived', 'validated'],
    ],
  ])('after %j, %s → 409 illegal-transition naming the allowed targets', async (path, target, detail, allowed) => {
    for (const step of path) expect((await setStatus(h, list.identifier, step)).statusCode).toBe(200);
    const before = await statusRow();
    await takeEvents(h);
    const response = await setStatus(h, list.identifier, target);
    expect(response.statusCode).toBe(409);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const body = response.json();
    expect(body).toEqual({
      type: '/problems/illegal-transition',
      title: 'This status change is not allowed',
      status: 409,
      detail,
      instance: body.instance,
      code: 'illegal-transition',
      from: path.at(-1),
      to: target === 'concept' ? 'created' : target,
      allowed,
    });
    expect(await statusRow()).toEqual(before);
    expect(await takeEvents(h)).toEqual([]);
  });

  it.each([['draft'], ['PUBLISHED!'], ['']])('an unknown status word %j → 400 validation-failed', async (word) => {
    const response = await setStatus(h, list.identifier, word);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation-failed', errors: [{ path: '/status' }] });
    expect((await statusRow()).status).toBe('created');
    expect(await takeEvents(h)).toEqual([]);
  });

  it('a body with extra fields or without status → 400', async () => {
    for (const payloadBody of [{}, { status: 'published', force: true }]) {
      const response = await h.asAdmin().post(`/api/admin/v1/lists/${list.identifier}/status`, payloadBody);
      expect(response.statusCode).toBe(400);
    }
    expect((await statusRow()).status).toBe('created');
  });

  it('the service rejects an unknown word too (CLI and seed use it without HTTP)', async () => {
    await expect(h.services.lists.changeStatus(list.identifier, 'gone', SYSTEM)).rejects.toMatchObject({
      code: 'validation-failed',
    });
    await expect(h.services.lists.changeStatus(list.identifier, ' Published ', SYSTEM)).resolves.toMatchObject({
      status: 'published',
    });
  });
});
