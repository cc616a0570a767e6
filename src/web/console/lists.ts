/**
 * Schools and lists: create them, and the tree school → tags → list with each list's allowed status
 * changes. The transitions are the server's own table (lml/status.ts), compiled in. Archived lists
 * are left out of the API's default listing; a toggle fetches them too and shows them greyed, with
 * their way back (archived → created).
 */

import { SCHOOL_TYPES } from '../../lml/model.js';
import type { SchoolView } from '../../lml/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { h } from '../common/dom.js';
import { t } from '../common/i18n.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { empty, field, inlineForm, select } from '../common/widgets.js';
import { act, api, go, link, state } from './app.js';
import { listDetail } from './list-detail.js';
import { type List, moveButtons, renameButton } from './list-moves.js';

type School = SchoolView;

function listNode(list: List): HTMLElement {
  const items = t('lml.itemsUpdated', { count: list.items.length });
  return h('span', { className: list.status === 'archived' ? 'row archived' : 'row' }, [
    link({ section: 'lml', id: list.identifier }, list.name, 'list-name'),
    stateBadge('list', list.status),
    h('span', { className: 'muted' }, items),
    when(list.updatedAt),
    renameButton(list),
    moveButtons(list),
  ]);
}

/** School → tags → list, as the tree of the specification: the breadcrumb's middle parts are the levels. */
function schoolTree(school: School, own: readonly List[]): HTMLElement {
  const nodes = new Map<string, HTMLElement>();
  const top = h('ul');
  for (const list of own) {
    let parent: HTMLElement = top;
    let key = '';
    for (const tag of (list.breadcrumb ?? []).slice(1, -1)) {
      key += `/${tag}`;
      let inner = nodes.get(key);
      if (inner === undefined) {
        inner = h('ul');
        nodes.set(key, inner);
        parent.append(h('li', {}, [h('span', { className: 'muted' }, tag), inner]));
      }
      parent = inner;
    }
    parent.append(h('li', {}, listNode(list)));
  }
  const where = school.type + (school.location ? ` · ${school.location}` : '');
  return h('li', {}, [
    h('strong', {}, school.name),
    ' ',
    h('span', { className: 'muted' }, where),
    own.length === 0 ? h('p', { className: 'muted' }, t('lml.noLists')) : top,
  ]);
}

function createForms(root: HTMLElement, schools: readonly School[]): void {
  const schoolName = h('input', {
    name: 'schoolName',
    required: true,
    maxlength: 200,
    placeholder: t('lml.schoolPlaceholder'),
  });
  const schoolType = select(SCHOOL_TYPES, 'HBO', t('lml.schoolType'));
  const location = h('input', { name: 'location', maxlength: 200, placeholder: t('lml.locationPlaceholder') });
  const createSchool = () => {
    const body = { name: schoolName.value.trim(), type: schoolType.value, location: location.value.trim() || null };
    const label = t('lml.createSchoolLabel', { name: body.name });
    return act(label, 'POST', '/schools', body, {
      done: () => t('lml.schoolCreated', { name: body.name }),
      events: () => 'school.created',
    });
  };
  const schoolFields = [
    field(t('common.name'), schoolName),
    field(t('lml.type'), schoolType),
    field(t('lml.location'), location),
  ];
  root.append(h('h2', {}, t('lml.newSchool')), inlineForm(schoolFields, t('lml.createSchool'), createSchool));
  const first = schools[0];
  if (first === undefined) return;
  const school = select(
    schools.map((x) => [x.identifier, x.name] as const),
    first.identifier,
    t('lml.school'),
  );
  const listName = h('input', {
    name: 'listName',
    required: true,
    maxlength: 200,
    placeholder: t('lml.listPlaceholder'),
  });
  const tags = h('input', { name: 'tags', placeholder: t('lml.tagsPlaceholder') });
  const createList = () => {
    const levels = tags.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const body = { school: school.value, name: listName.value.trim(), tags: levels };
    const label = t('lml.createListLabel', { name: body.name });
    return act(label, 'POST', '/lists', body, {
      done: () => t('lml.listCreated', { name: body.name }),
      events: () => 'list.created, list.status',
    });
  };
  const listFields = [field(t('lml.school'), school), field(t('lml.listName'), listName), field(t('lml.tags'), tags)];
  root.append(h('h2', {}, t('lml.newList')), inlineForm(listFields, t('lml.createList'), createList));
}

export async function lml(root: HTMLElement): Promise<void> {
  if (state.detail) {
    await listDetail(root, state.detail);
    return;
  }
  root.append(h('h1', {}, t('lml.title')));
  const showArchived = state.query.archived === '1';
  const [schoolsResult, listsResult, archivedResult] = await Promise.all([
    api<Page<School>>('GET', '/schools?limit=200'),
    api<Page<List>>('GET', '/lists?limit=200'),
    showArchived ? api<Page<List>>('GET', '/lists?status=archived&limit=200') : undefined,
  ]);
  const failed = [schoolsResult, listsResult, archivedResult].find((result) => result !== undefined && !result.ok);
  if (failed !== undefined && !failed.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(failed) })));
    return;
  }
  const schools = rowsOf(schoolsResult);
  const lists = [...rowsOf(listsResult), ...(archivedResult ? rowsOf(archivedResult) : [])];
  createForms(root, schools);
  const toggle: HTMLInputElement = h('input', {
    type: 'checkbox',
    id: 'show-archived',
    checked: showArchived,
    onchange: (): Promise<void> =>
      go({ section: 'lml', query: { archived: toggle.checked ? '1' : '' } }, { keepNotice: true }),
  });
  root.append(
    h('div', { className: 'row tree-head' }, [
      h('h2', {}, t('lml.tree')),
      h('label', { className: 'toggle' }, [toggle, t('lml.showArchived')]),
    ]),
  );
  if (schools.length === 0) {
    root.append(empty(t('lml.noSchools')));
    return;
  }
  const tree = h(
    'ul',
    {},
    schools.map((school) =>
      schoolTree(
        school,
        lists.filter((l) => l.school.identifier === school.identifier),
      ),
    ),
  );
  root.append(h('div', { className: 'tree panel' }, tree));
}
