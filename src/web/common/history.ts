/**
 * A resource's History panel (a client, a subscription, a list): its audit records, newest first,
 * from GET /api/admin/v1/audit?targetType=…&targetId=…, with who made each change, from where, and
 * the fields it changed. The console's Audit page draws its rows with the same columns.
 */
import type { AuditRecord } from '../../audit/canonical.js';
import { type Api, type Page, problemText, rowsOf } from './api.js';
import { type Child, h } from './dom.js';
import { t, word } from './i18n.js';
import { when } from './time.js';
import { type Column, empty, table } from './widgets.js';

const HISTORY_LIMIT = 20;

/** Who made a change, as a person reads it: "ada@example.org (admin)", "partner cli_…", "system". */
export function actorText(record: AuditRecord): string {
  const { type, id, name } = record.actor;
  if (type === 'system') return t('history.system');
  const who = type === 'admin-token' ? t('signin.adminToken') : (name ?? id ?? type);
  const what = type === 'partner' ? t('history.partner', { who }) : who;
  return record.role === null ? what : t('history.withRole', { who: what, role: word('roles', record.role) });
}

function value(x: unknown): string {
  if (x === null || x === undefined) return '—';
  if (typeof x === 'string') return x;
  if (Array.isArray(x) && x.every((item) => typeof item === 'string')) return x.join(', ');
  return JSON.stringify(x);
}

/** One line per changed field: "status: active → revoked". */
export function changesList(record: AuditRecord): Child {
  const fields = Object.entries(record.changes);
  if (fields.length === 0) return h('span', { className: 'muted' }, '—');
  return h(
    'ul',
    { className: 'changes' },
    fields.map(([field, { before, after }]) =>
      h('li', {}, [h('code', {}, field), ': ', before === null ? '' : `${value(before)} → `, value(after)]),
    ),
  );
}

export const auditColumns: readonly Column<AuditRecord>[] = [
  [t('history.when'), (r) => when(r.at)],
  [t('history.who'), (r) => [actorText(r), r.ip === null ? null : h('div', { className: 'muted' }, r.ip)]],
  [t('history.action'), (r) => h('code', {}, r.action)],
  [t('history.changes'), changesList],
];

/** The History panel of one resource. */
export async function historyPanel(api: Api, targetType: string, targetId: string): Promise<HTMLElement> {
  const query = new URLSearchParams({ targetType, targetId, limit: String(HISTORY_LIMIT) });
  const result = await api<Page<AuditRecord>>('GET', `/audit?${query.toString()}`);
  const body = result.ok
    ? table(rowsOf(result), auditColumns, t('history.none'))
    : empty(t('history.couldNotLoad', { problem: problemText(result) }));
  return h('section', { className: 'history panel', 'aria-label': t('history.title') }, [
    h('h2', {}, t('history.title')),
    body,
  ]);
}
