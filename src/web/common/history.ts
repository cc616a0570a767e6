/**
 * A resource's History panel (a client, a subscription, a list): its audit records, newest first,
 * from GET /api/admin/v1/audit?targetType=…&targetId=…, with who made each change, from where, and
 * the fields it changed. The console's Audit page draws its rows with the same columns. What records
 * refer to by id (a partner, a list's school, a subscription's client) is shown by the name the page
 * of records carries for it, linked where the console has a page; times as everywhere else (time.ts).
 */
import type { AuditRecord } from '../../audit/canonical.js';
import { SUBJECT_FIELDS } from '../../audit/model.js';
import type { AuditSubject } from '../../audit/schemas.js';
import { type Api, type Page, problemText } from './api.js';
import { type Child, h } from './dom.js';
import { parts, t, word } from './i18n.js';
import { when } from './time.js';
import { type Column, empty, table } from './widgets.js';

const HISTORY_LIMIT = 20;

/** A page of the audit log as the API answers it. */
export type AuditPage = Page<AuditRecord> & { subjects: AuditSubject[] };

/** A page's named subjects by `type:id`. */
export type Subjects = ReadonlyMap<string, AuditSubject>;

export const subjectsOf = (page: AuditPage): Subjects =>
  new Map(page.subjects.map((subject) => [`${subject.type}:${subject.id}`, subject]));

/** Where the console shows a subject: a link to its page for `text`, or undefined where it has none. */
export type SubjectLink = (type: string, id: string, text: string) => Child;

/** The links a History panel may carry: to what the records name, and to all of its records. */
export interface HistoryLinks {
  subject: SubjectLink;
  records: (targetType: string, targetId: string, text: string) => Child;
}

/** "vwo 4 (Erasmus Lyceum)", "Boekhandel Noord → list.published", "Boekhandel Noord". */
function nameOf(subject: AuditSubject): string {
  if (subject.owner === null) return subject.name;
  return subject.type === 'subscription' ? `${subject.owner} → ${subject.name}` : `${subject.name} (${subject.owner})`;
}

/** A subject by its name, linked where the console has a page; unnamed (deleted, or nameless) by its kind and id. */
export function subjectText(subjects: Subjects, type: string, id: string, linkTo?: SubjectLink): Child {
  const subject = subjects.get(`${type}:${id}`);
  if (subject === undefined) return [`${type} `, h('code', { className: 'id' }, id)];
  return linkTo === undefined ? nameOf(subject) : linkTo(type, id, nameOf(subject));
}

/** Who made a change, as a person reads it: "ada@example.org (admin)", "partner Boekhandel Noord", "system". */
export function actorText(record: AuditRecord, subjects: Subjects, linkTo?: SubjectLink): Child {
  const { type, id, name } = record.actor;
  if (type === 'system') return t('history.system');
  const who: Child =
    type === 'admin-token'
      ? t('signin.adminToken')
      : type === 'partner' && id !== null
        ? subjectText(subjects, 'client', id, linkTo)
        : (name ?? id ?? type);
  const what = type === 'partner' ? parts('history.partner', { who }) : who;
  return record.role === null ? what : parts('history.withRole', { who: what, role: word('roles', record.role) });
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function value(x: unknown): Child {
  if (x === null || x === undefined) return '—';
  if (typeof x === 'string') return ISO_INSTANT.test(x) ? when(x) : x;
  if (Array.isArray(x) && x.every((item) => typeof item === 'string')) return x.join(', ');
  return JSON.stringify(x);
}

/** One line per changed field: "status: active → revoked"; another subject by its name, a time as a time. */
export function changesList(record: AuditRecord, subjects: Subjects, linkTo?: SubjectLink): Child {
  const fields = Object.entries(record.changes);
  if (fields.length === 0) return h('span', { className: 'muted' }, '—');
  const refers = SUBJECT_FIELDS[record.target.type] ?? {};
  const shown = (field: string, x: unknown): Child => {
    const type = refers[field];
    return type !== undefined && typeof x === 'string' && x !== '' ? subjectText(subjects, type, x, linkTo) : value(x);
  };
  return h(
    'ul',
    { className: 'changes' },
    fields.map(([field, { before, after }]) =>
      h('li', {}, [
        h('code', {}, field),
        ': ',
        before === null ? '' : [shown(field, before), ' → '],
        shown(field, after),
      ]),
    ),
  );
}

/** When, who, action and changes: the columns of the History panel and, with the target, of the Audit page. */
export function auditColumns(subjects: Subjects, linkTo?: SubjectLink): Column<AuditRecord>[] {
  return [
    [t('history.when'), (r) => when(r.at)],
    [
      t('history.who'),
      (r) => [actorText(r, subjects, linkTo), r.ip === null ? null : h('div', { className: 'muted' }, r.ip)],
    ],
    [t('history.action'), (r) => h('code', {}, r.action)],
    [t('history.changes'), (r) => changesList(r, subjects, linkTo)],
  ];
}

/** The History panel of one resource: its newest records, and a way to the older ones when there are more. */
export async function historyPanel(
  api: Api,
  targetType: string,
  targetId: string,
  links?: HistoryLinks,
): Promise<HTMLElement> {
  const query = new URLSearchParams({ targetType, targetId, limit: String(HISTORY_LIMIT) });
  const result = await api<AuditPage>('GET', `/audit?${query.toString()}`);
  const body = result.ok
    ? [
        table(result.data.data, auditColumns(subjectsOf(result.data), links?.subject), t('history.none')),
        result.data.has_more && links !== undefined
          ? h('p', {}, links.records(targetType, targetId, t('history.allRecords')))
          : null,
      ]
    : empty(t('history.couldNotLoad', { problem: problemText(result) }));
  return h('section', { className: 'history panel', 'aria-label': t('history.title') }, [
    h('h2', {}, t('history.title')),
    body,
  ]);
}
