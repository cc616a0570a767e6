/**
 * The audit log (/dashboard/audit): who changed what, newest first, filtered by actor, action,
 * target and time (all in the address), a page of 20 at a time with older and newer pages by keyset
 * (`after` and `before` in the address, the API's starting_after and ending_before), and the ndjson
 * export of every match. A record's target is named and linked to its page, and to its records.
 */
import type { AuditRecord } from '../../audit/canonical.js';
import { AUDIT_ACTIONS } from '../../audit/catalogue.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { type AuditPage, auditColumns, subjectsOf, subjectText } from '../common/history.js';
import { t } from '../common/i18n.js';
import { empty, field, inlineForm, select, table } from '../common/widgets.js';
import { api, go, link, state } from './app.js';
import { subjectLink } from './history-pages.js';

/** Records a page: at 390 px a record is a card of about 200 px, so 20 keep a page within a few screens. */
const PAGE_SIZE = 20;

const FILTERS = ['actor', 'action', 'targetType', 'targetId'] as const;
const TARGET_TYPES = ['', ...new Set(Object.values(AUDIT_ACTIONS).map((spec) => spec.target))];
const ACTIONS = ['', ...Object.keys(AUDIT_ACTIONS)];

/** A date input's day as the start of that day in UTC (since) or the start of the next (until). */
const dayBound = (day: string, next: boolean): string =>
  day === '' ? '' : new Date(Date.parse(`${day}T00:00:00Z`) + (next ? 86_400_000 : 0)).toISOString();

function filterForm(): HTMLFormElement {
  const q = state.query;
  const actor = h('input', { name: 'actor', value: q.actor ?? '', placeholder: t('audit.actorPlaceholder') });
  const action = select(ACTIONS, q.action ?? '', t('history.action'));
  const targetType = select(TARGET_TYPES, q.targetType ?? '', t('audit.targetType'));
  const targetId = h('input', { name: 'targetId', value: q.targetId ?? '', placeholder: 'cli_…, sub_…' });
  const since = h('input', { type: 'date', name: 'since', value: q.since ?? '' });
  const until = h('input', { type: 'date', name: 'until', value: q.until ?? '' });
  return inlineForm(
    [
      field(t('audit.actor'), actor),
      field(t('history.action'), action),
      field(t('audit.targetType'), targetType),
      field(t('audit.targetId'), targetId),
      field(t('common.from'), since),
      field(t('audit.to'), until),
    ],
    t('common.filter'),
    () =>
      go({
        section: 'audit',
        query: {
          actor: actor.value.trim(),
          action: action.value,
          targetType: targetType.value,
          targetId: targetId.value.trim(),
          since: since.value,
          until: until.value,
        },
      }),
  );
}

/** Newer and older pages from this one, above and below the records. */
function pager(page: AuditPage): HTMLElement | null {
  const { after, before, ...filters } = state.query;
  const first = page.data.at(0);
  const last = page.data.at(-1);
  // Paged back from an older page, there are newer records when the API says so; paged forward, there are.
  const newer = before ? page.has_more : Boolean(after);
  const older = before ? true : page.has_more;
  const links = [
    newer && first !== undefined
      ? link({ section: 'audit', query: { ...filters, before: first.id } }, t('audit.newer'))
      : null,
    older && last !== undefined
      ? link({ section: 'audit', query: { ...filters, after: last.id } }, t('audit.older'))
      : null,
  ].filter((control) => control !== null);
  return links.length === 0 ? null : h('nav', { className: 'pager', 'aria-label': t('audit.pages') }, links);
}

export async function audit(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('audit.title')));
  root.append(h('p', { className: 'muted' }, t('audit.note')), filterForm());
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const name of FILTERS) if (state.query[name]) query.set(name, state.query[name] ?? '');
  // The address carries days (the date inputs'); the API takes instants: From's start, To's end (UTC).
  if (state.query.since) query.set('since', dayBound(state.query.since, false));
  if (state.query.until) query.set('until', dayBound(state.query.until, true));
  const exportQuery = new URLSearchParams(query);
  exportQuery.delete('limit');
  exportQuery.set('format', 'ndjson');
  root.append(
    h(
      'p',
      {},
      h('a', { href: `/api/admin/v1/audit?${exportQuery.toString()}`, download: 'audit.ndjson' }, t('audit.export')),
    ),
  );
  if (state.query.before) query.set('ending_before', state.query.before);
  else if (state.query.after) query.set('starting_after', state.query.after);
  const result = await api<AuditPage>('GET', `/audit?${query.toString()}`);
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const subjects = subjectsOf(result.data);
  const target = (r: AuditRecord) => [
    subjectText(subjects, r.target.type, r.target.id, subjectLink),
    h(
      'div',
      { className: 'muted' },
      link({ section: 'audit', query: { targetType: r.target.type, targetId: r.target.id } }, t('audit.itsRecords')),
    ),
  ];
  const columns = auditColumns(subjects, subjectLink);
  columns.splice(3, 0, [t('audit.target'), target]);
  const records = table(result.data.data, columns, t('audit.none'));
  root.append(...[pager(result.data), records, pager(result.data)].filter((part) => part !== null));
}
