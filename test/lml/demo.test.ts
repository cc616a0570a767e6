import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { seedDemoLml } from '../../src/lml/demo-lml.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

describeEachEngine('LML demo data', (engine) => {
  const h = useHarness(engine);

  it('seeds 3 schools and 6 lists in every status through the services, with their events', async () => {
    expect(await seedDemoLml(h.services, SYSTEM)).toEqual({ schools: 3, lists: 6 });
    const db = h.database.db.kysely;
    expect(
      (await db.selectFrom('schools').select(['name', 'type']).orderBy('name').execute()).map(
        (row) => `${row.type} ${row.name}`,
      ),
    ).toEqual(['VO Erasmus Lyceum Zuid', 'HBO Hogeschool Amstelland', 'MBO ROC Vijf Rivieren']);
    const statuses = (await db.selectFrom('lists').select('status').execute()).map((row) => row.status).sort();
    expect(statuses).toEqual(['archived', 'created', 'published', 'published', 'published', 'validated']);
    const counts = await db
      .selectFrom('events')
      .select(['name', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('name')
      .orderBy('name')
      .execute();
    expect(counts.map((row) => [row.name, Number(row.n)])).toEqual([
      ['list.created', 6],
      ['list.published', 4],
      // 6 at creation + validated ×2 + published ×4 + archived ×1
      ['list.status', 13],
      ['school.created', 3],
    ]);

    const reader = await createClientWithToken(h, 'Reader', ['lml:read']);
    const lists = (await h.as(reader).get('/api/lml/v1/lists')).json<{
      data: { breadcrumb: string[]; status: string }[];
    }>();
    expect(lists.data).toHaveLength(5);
    expect(lists.data.map((list) => list.breadcrumb)).toContainEqual([
      'Hogeschool Amstelland',
      'Amsterdam',
      '2026-2027',
      'Academie ICT & Media',
      'HBO-ICT propedeuse',
    ]);
    expect(lists.data.every((list) => list.status !== 'archived')).toBe(true);
    const roots = (await h.as(reader).get('/api/lml/v1/structure')).json<{ model: string }[]>();
    expect(roots.map((node) => node.model)).toEqual(['SCHOOL', 'SCHOOL', 'SCHOOL']);
  });
});
