/**
 * Every school and list change commits together with its events (and their deliveries) or not at
 * all: these tests break the transaction after the change and its events were issued.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { ListStore } from '../../src/lml/list-store.js';
import { SchoolStore } from '../../src/lml/school-store.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { createList, createSchool, EANS, eventRow, events, payload, setStatus, takeEvents } from './support.js';

describeEachEngine('LML events through the outbox', (engine) => {
  const h = useHarness(engine);

  const kysely = () => h.database.db.kysely;
  /** Makes recording events fail, as a crash or a full disk between change and event would. */
  const breakEvents = () => sql`alter table events rename to events_unavailable`.execute(kysely());
  const repairEvents = () => sql`alter table events_unavailable rename to events`.execute(kysely());
  /** A school with one list, their events already taken: the two, and the lists as stored. */
  const listWithEventsTaken = async () => {
    const school = await createSchool(h);
    const list = await createList(h, school.identifier);
    await takeEvents(h);
    const before = await kysely().selectFrom('lists').selectAll().execute();
    return { school, list, before };
  };

  it('a transaction that fails after the change and its emit keeps neither (school insert)', async () => {
    const failure = h.services.work.run(SYSTEM, async ({ trx, emit }) => {
      await new SchoolStore(trx).insert({
        identifier: 'a'.repeat(32),
        name: 'X',
        type: 'HBO',
        location: null,
        brin: null,
        created_at: 1,
        updated_at: 1,
      });
      emit({ name: 'school.created', type: 'created', resource: 'school', identifier: 'a'.repeat(32) });
      throw new Error('crash after the change');
    });
    await expect(failure).rejects.toThrow('crash after the change');
    expect(await kysely().selectFrom('schools').selectAll().execute()).toEqual([]);
    expect(await events(h)).toEqual([]);
  });

  it('a transaction that fails after a list update and its emit keeps neither', async () => {
    const { list, before } = await listWithEventsTaken();
    const failure = h.services.work.run(SYSTEM, async ({ trx, emit }) => {
      await new ListStore(trx).update(list.identifier, { name: 'Changed', updated_at: 2 });
      emit({ name: 'list.updated', type: 'updated', resource: 'list', identifier: list.identifier });
      throw new Error('crash after the change');
    });
    await expect(failure).rejects.toThrow('crash after the change');
    expect(await kysely().selectFrom('lists').selectAll().execute()).toEqual(before);
    expect(await events(h)).toEqual([]);
  });

  it('when the events cannot be written, creating a school fails with 500 and stores nothing', async () => {
    await breakEvents();
    const response = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Lost', type: 'VO' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'internal', status: 500 });
    expect(response.body).not.toContain('events');
    await repairEvents();
    expect(await kysely().selectFrom('schools').selectAll().execute()).toEqual([]);
    expect(await events(h)).toEqual([]);
  });

  it('when the events cannot be written, list create, patch and status change leave the list as it was', async () => {
    const { school, list, before } = await listWithEventsTaken();
    await breakEvents();
    h.clock.advance(1000);
    const attempts = [
      h.asAdmin().post('/api/admin/v1/lists', { school: school.identifier, name: 'Lost' }),
      h.asAdmin().patch(`/api/admin/v1/lists/${list.identifier}`, { name: 'Lost change' }),
      setStatus(h, list.identifier, 'published'),
      h.asAdmin().patch(`/api/admin/v1/schools/${school.identifier}`, { name: 'Lost change' }),
    ];
    for (const response of await Promise.all(attempts)) expect(response.statusCode).toBe(500);
    await repairEvents();
    expect(await kysely().selectFrom('lists').selectAll().execute()).toEqual(before);
    expect((await kysely().selectFrom('schools').select('name').executeTakeFirstOrThrow()).name).toBe(
      'Hogeschool Utrecht',
    );
    expect(await events(h)).toEqual([]);
  });

  it('a publication creates one delivery per matching active subscription, in the same commit', async () => {
    const client = await createClientWithToken(h, 'Receiver');
    const subscription = (id: string, event: string, status = 'active') => ({
      id,
      client_ref: client.id,
      notification_url: `https://receiver.example/${id}`,
      event,
      event_as_given: event,
      status,
      disabled_reason: null,
      failing_since: null,
      created_at: h.clock.now(),
      updated_at: h.clock.now(),
    });
    await kysely()
      .insertInto('subscriptions')
      .values([
        subscription('sub_published', 'list.published'),
        subscription('sub_status', 'list.status'),
        subscription('sub_off', 'list.published', 'disabled'),
        subscription('sub_school', 'school.created'),
      ])
      .execute();
    const school = await createSchool(h);
    const list = await createList(h, school.identifier);
    await kysely().deleteFrom('deliveries').execute();
    await kysely().deleteFrom('events').execute();
    expect((await setStatus(h, list.identifier, 'published')).statusCode).toBe(200);
    const rows = await kysely()
      .selectFrom('deliveries')
      .innerJoin('events', 'events.id', 'deliveries.event_id')
      .select(['deliveries.subscription_id', 'deliveries.status', 'events.name', 'events.payload'])
      .orderBy('deliveries.subscription_id')
      .execute();
    expect(rows).toEqual([
      {
        subscription_id: 'sub_published',
        status: 'pending',
        name: 'list.published',
        payload: payload('published', 'list', list.identifier),
      },
      {
        subscription_id: 'sub_status',
        status: 'pending',
        name: 'list.status',
        payload: payload('published', 'list', list.identifier),
      },
    ]);
  });

  it('two concurrent publications of one list record the publication once', async () => {
    const school = await createSchool(h);
    const list = await createList(h, school.identifier);
    await takeEvents(h);
    const responses = await Promise.all([
      setStatus(h, list.identifier, 'published'),
      setStatus(h, list.identifier, 'published'),
      setStatus(h, list.identifier, 'published'),
    ]);
    for (const response of responses) expect([200, 409]).toContain(response.statusCode);
    expect(responses.some((response) => response.statusCode === 200)).toBe(true);
    expect(await takeEvents(h)).toEqual([
      eventRow('list.published', 'published', list.identifier),
      eventRow('list.status', 'published', list.identifier),
    ]);
  });

  it('the full story of a list is told by exactly these events', async () => {
    const school = await createSchool(h);
    expect(await takeEvents(h)).toEqual([eventRow('school.created', 'created', school.identifier)]);
    const list = await createList(h, school.identifier);
    const listEvent = (name: string, type: string) => eventRow(name, type, list.identifier);
    expect(await takeEvents(h)).toEqual([listEvent('list.created', 'created'), listEvent('list.status', 'created')]);
    await h
      .asAdmin()
      .patch(`/api/admin/v1/lists/${list.identifier}`, { items: [{ ean: EANS[3], title: 'Nieuw boek' }] });
    expect(await takeEvents(h)).toEqual([listEvent('list.updated', 'updated')]);
    await setStatus(h, list.identifier, 'validated');
    expect(await takeEvents(h)).toEqual([listEvent('list.status', 'validated')]);
    await setStatus(h, list.identifier, 'published');
    expect(await takeEvents(h)).toEqual([
      listEvent('list.published', 'published'),
      listEvent('list.status', 'published'),
    ]);
    await setStatus(h, list.identifier, 'archived');
    expect(await takeEvents(h)).toEqual([listEvent('list.status', 'archived')]);
    await h.asAdmin().patch(`/api/admin/v1/schools/${school.identifier}`, { location: 'Utrecht' });
    expect(await takeEvents(h)).toEqual([eventRow('school.modified', 'modified', school.identifier)]);
  });
});
