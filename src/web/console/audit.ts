/**
 * The audit log (/dashboard/audit): who changed what, newest first, filtered by actor, action,
 * target and time (all in the address), older pages by `starting_after`, and the ndjson export of
 * every match. A record's target links to that target's records.
 */
import type { AuditRecord } from '../../audit/canonical.js';
import { AUDIT_ACTIONS } from '../../audit/catalogue.js';
import { type Page, problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { auditColumns } from '../common/history.js';
import { t } from '../common/i18n.js';
import { empty, field, inlineForm, select, table } from '../common/widgets.js';
import { api, go, link, state } from './app.js';

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

export async function audit(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('audit.title')));
  root.append(h('p', { className: 'muted' }, t('audit.note')), filterForm());
  const query = new URLSearchParams({ limit: '50' });
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
  if (state.query.after) query.set('starting_after', state.query.after);
  const result = await api<Page<AuditRecord>>('GET', `/audit?${query.toString()}`);
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const records = result.data.data;
  const target = (r: AuditRecord) =>
    link(
      { section: 'audit', query: { targetType: r.target.type, targetId: r.target.id } },
      `${r.target.type} ${r.target.id}`,
    );
  const [when, who, action, changes] = auditColumns;
  root.append(
    table(
      records,
      when && who && action && changes ? [when, who, action, [t('audit.target'), target], changes] : auditColumns,
      t('audit.none'),
    ),
  );
  const last = records.at(-1);
  if (result.data.has_more && last !== undefined)
    root.append(h('p', {}, link({ section: 'audit', query: { ...state.query, after: last.id } }, t('audit.older'))));
}
