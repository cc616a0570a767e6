/**
 * The portal's subject names for a page of deliveries: lists (with their school) and schools by name,
 * null for a ping, another kind or a subject that is gone, and one query per kind however many
 * deliveries name them (a log of 50 list changes was 50 look-ups).
 */
import { expect, it } from 'vitest';
import type { WebhookPayload } from '../../src/delivery/schemas.js';
import { ListStore } from '../../src/lml/list-store.js';
import { SchoolStore } from '../../src/lml/school-store.js';
import { PortalSubjects } from '../../src/portal/subjects.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';

describeEachEngine('portal subject names', (engine) => {
  const h = useHarness(engine);

  /** The stores the names come from, each call's identifiers recorded. */
  function countingStores() {
    const calls: { lists: string[][]; schools: string[][] } = { lists: [], schools: [] };
    const counting = <S extends { names(ids: readonly string[]): Promise<unknown> }>(store: S, into: string[][]): S => {
      const names = store.names.bind(store);
      return Object.assign(store, {
        names: (ids: readonly string[]) => {
          into.push([...ids]);
          return names(ids);
        },
      });
    };
    const db = h.database.db.kysely;
    return {
      calls,
      stores: {
        lists: counting(new ListStore(db), calls.lists),
        schools: counting(new SchoolStore(db), calls.schools),
      },
    };
  }

  async function school(name: string): Promise<string> {
    const created = await h.asAdmin().post('/api/admin/v1/schools', { name, type: 'VO' });
    expect(created.statusCode).toBe(201);
    return created.json<{ identifier: string }>().identifier;
  }

  async function list(schoolId: string, name: string): Promise<string> {
    const created = await h.asAdmin().post('/api/admin/v1/lists', { school: schoolId, name, tags: [] });
    expect(created.statusCode).toBe(201);
    return created.json<{ identifier: string }>().identifier;
  }

  const about = (resource: string, identifier: string): { payload: WebhookPayload } => ({
    payload: { type: 'updated', resource, identifier },
  });

  it('names every list and school of a page in one query each, repeated subjects once, the rest null', async () => {
    const erasmus = await school('Erasmus Lyceum');
    const gymnasium = await school('Stedelijk Gymnasium');
    const listIds = [await list(erasmus, 'vwo 4'), await list(erasmus, 'havo 5'), await list(gymnasium, 'gym 1')];
    const gone = '0123456789abcdef0123456789abcdef';
    const page = [
      ...listIds.map((id) => about('list', id)),
      about('list', listIds[0] as string),
      about('school', gymnasium),
      about('school', erasmus),
      about('list', gone),
      about('school', gone),
      about('ping', 'sub_x'),
    ];
    const { calls, stores } = countingStores();
    const subjects = new PortalSubjects(h.services.lists, stores);

    const named = await subjects.nameAll(page);

    expect(named.map((d) => d.subject)).toEqual([
      { name: 'vwo 4', school: 'Erasmus Lyceum' },
      { name: 'havo 5', school: 'Erasmus Lyceum' },
      { name: 'gym 1', school: 'Stedelijk Gymnasium' },
      { name: 'vwo 4', school: 'Erasmus Lyceum' },
      { name: 'Stedelijk Gymnasium' },
      { name: 'Erasmus Lyceum' },
      null,
      null,
      null,
    ]);
    expect(named.map((d) => d.payload)).toEqual(page.map((d) => d.payload));
    expect(calls.lists).toEqual([[...listIds, gone]]);
    expect(calls.schools).toEqual([[gymnasium, erasmus, gone]]);
  });

  it('names a page without lists or schools null (the stores answer an empty set without a query), and one delivery alone', async () => {
    const erasmus = await school('Erasmus Lyceum');
    const { calls, stores } = countingStores();
    const subjects = new PortalSubjects(h.services.lists, stores);

    expect(await subjects.nameAll([about('ping', 'sub_x')])).toEqual([{ ...about('ping', 'sub_x'), subject: null }]);
    expect(await subjects.nameAll([])).toEqual([]);
    expect(await subjects.name(about('school', erasmus).payload)).toEqual({ name: 'Erasmus Lyceum' });
    expect(calls.lists).toEqual([[], [], []]);
    expect(calls.schools).toEqual([[], [], [erasmus]]);
  });
});
