import { beforeEach, expect, it } from 'vitest';
import { tagId } from '../../src/lml/structure.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { createList, createSchool, setStatus } from './support.js';

interface Node {
  id: string;
  name: string;
  model: string;
  resource: unknown;
}

describeEachEngine('LML structure', (engine) => {
  const h = useHarness(engine, { client: { name: 'Reader', scopes: ['lml:read'] } });
  let hu: { identifier: string };
  let roc: { identifier: string };
  const lists: Record<string, { identifier: string; slug: string }> = {};

  beforeEach(async () => {
    hu = await createSchool(h, { name: 'Hogeschool Utrecht', type: 'HBO' });
    roc = await createSchool(h, { name: 'Alfa-college', type: 'MBO' });
    const make = async (key: string, tags: string[], status?: string) => {
      lists[key] = await createList(h, hu.identifier, { name: key, tags });
      if (status !== undefined) await setStatus(h, lists[key].identifier, status);
    };
    await make('ICT jaar 1', ['Utrecht', '2026-2027', 'Academie ICT'], 'published');
    await make('ICT jaar 2', ['Utrecht', '2026-2027', 'Academie ICT']);
    await make('Verpleegkunde', ['Utrecht', '2026-2027', 'Academie Gezondheidszorg'], 'validated');
    await make('Bedrijfskunde', ['Amersfoort']);
    await make('Algemene lijst', []);
    await make('Oude lijst', ['Zwolle'], 'archived');
  });

  const children = async (parent?: string) => {
    const response = await h
      .as(h.client)
      .get(`/api/lml/v1/structure${parent === undefined ? '' : `?parent=${encodeURIComponent(parent)}`}`);
    expect(response.statusCode).toBe(200);
    return response.json<Node[]>();
  };
  const listNode = (key: string, status: string): Node => {
    const list = lists[key];
    if (list === undefined) throw new Error(key);
    return { id: list.identifier, name: key, model: 'LIST', resource: { slug: list.slug, status } };
  };

  it('without parent: the schools, by name, with their type', async () => {
    expect(await children()).toEqual([
      { id: roc.identifier, name: 'Alfa-college', model: 'SCHOOL', resource: { type: 'MBO' } },
      { id: hu.identifier, name: 'Hogeschool Utrecht', model: 'SCHOOL', resource: { type: 'HBO' } },
    ]);
  });

  it('walks SCHOOL → TAG → TAG → TAG → LIST, leaving archived lists out', async () => {
    const level1 = await children(hu.identifier);
    expect(level1).toEqual([
      { id: tagId(hu.identifier, ['Amersfoort']), name: 'Amersfoort', model: 'TAG', resource: null },
      { id: tagId(hu.identifier, ['Utrecht']), name: 'Utrecht', model: 'TAG', resource: null },
      listNode('Algemene lijst', 'created'),
    ]);
    const utrecht = level1[1]?.id ?? '';
    expect(utrecht).toMatch(/^tag_[0-9a-f]{56}$/);
    expect(await children(utrecht)).toEqual([
      { id: tagId(hu.identifier, ['Utrecht', '2026-2027']), name: '2026-2027', model: 'TAG', resource: null },
    ]);
    const year = tagId(hu.identifier, ['Utrecht', '2026-2027']);
    const level3 = await children(year);
    expect(level3.map((node) => [node.model, node.name])).toEqual([
      ['TAG', 'Academie Gezondheidszorg'],
      ['TAG', 'Academie ICT'],
    ]);
    expect(await children(level3[1]?.id)).toEqual([
      listNode('ICT jaar 1', 'published'),
      listNode('ICT jaar 2', 'created'),
    ]);
    expect(await children(level3[0]?.id)).toEqual([listNode('Verpleegkunde', 'validated')]);
    expect(await children(tagId(hu.identifier, ['Amersfoort']))).toEqual([listNode('Bedrijfskunde', 'created')]);
  });

  it('a school without lists has no children; tag ids are stable across calls', async () => {
    expect(await children(roc.identifier)).toEqual([]);
    expect((await children(hu.identifier)).map((node) => node.id)).toEqual(
      (await children(hu.identifier)).map((node) => node.id),
    );
  });

  it('the same tag path under another school is another node', () => {
    expect(tagId(hu.identifier, ['Utrecht'])).not.toBe(tagId(roc.identifier, ['Utrecht']));
    expect(tagId(hu.identifier, ['a/b'])).not.toBe(tagId(hu.identifier, ['a', 'b']));
  });

  it('unknown parents → 404: an unknown school, a tag only archived lists had, a list, garbage', async () => {
    for (const parent of [
      '9'.repeat(32),
      tagId(hu.identifier, ['Zwolle']),
      tagId('9'.repeat(32), ['Utrecht']),
      `tag_${'0'.repeat(56)}`,
      lists['ICT jaar 1']?.identifier ?? '',
      'tag_nope',
      'SCHOOL',
    ]) {
      const response = await h.as(h.client).get(`/api/lml/v1/structure?parent=${parent}`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not-found', detail: `structure node ${parent} was not found` });
    }
  });

  it('an archived list disappears from the tree and comes back when revived', async () => {
    const ict = tagId(hu.identifier, ['Utrecht', '2026-2027', 'Academie ICT']);
    await setStatus(h, lists['ICT jaar 2']?.identifier ?? '', 'archived');
    expect((await children(ict)).map((node) => node.name)).toEqual(['ICT jaar 1']);
    await setStatus(h, lists['Oude lijst']?.identifier ?? '', 'created');
    expect((await children(hu.identifier)).map((node) => node.name)).toEqual([
      'Amersfoort',
      'Utrecht',
      'Zwolle',
      'Algemene lijst',
    ]);
  });
});
