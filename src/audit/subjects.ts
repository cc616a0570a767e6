/**
 * The names of what a page of audit records is about: its targets, a list's school, a subscription's
 * client, a partner. A record keeps ids only (its hash covers what was recorded, and names change), so
 * the names are read as they are now, in one query per page: one UNION ALL of a primary-key look-up
 * per kind of subject. A deleted subject has no name and is left out.
 */
import { type SelectQueryBuilder, sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { AuditRecord } from './canonical.js';
import { isNamedSubject, NAMED_SUBJECTS, type NamedSubject, SUBJECT_FIELDS } from './model.js';
import type { AuditSubject } from './schemas.js';

/** The ids each kind of named subject is referred to by in these records. */
export function referencesOf(records: readonly AuditRecord[]): Map<NamedSubject, Set<string>> {
  const ids = new Map<NamedSubject, Set<string>>();
  const add = (type: NamedSubject, id: unknown): void => {
    if (typeof id !== 'string' || id === '') return;
    const set = ids.get(type) ?? new Set<string>();
    set.add(id);
    ids.set(type, set);
  };
  for (const record of records) {
    if (isNamedSubject(record.target.type)) add(record.target.type, record.target.id);
    if (record.actor.type === 'partner') add('client', record.actor.id);
    for (const [field, type] of Object.entries(SUBJECT_FIELDS[record.target.type] ?? {})) {
      const change = record.changes[field];
      if (change !== undefined && isNamedSubject(type))
        for (const value of [change.before, change.after]) add(type, value);
    }
  }
  return ids;
}

type Row = { type: string; id: string; name: string | null; owner: string | null };
type Look = SelectQueryBuilder<Database, keyof Database, Row>;

const literal = (type: NamedSubject) => sql<string>`${sql.lit(type)}`.as('type');
const noOwner = sql<string | null>`cast(null as text)`.as('owner');

/** One look-up per kind, each by its primary key (operators by their subject, the id the audit log keeps). */
function lookUps(db: Executor, ids: ReadonlyMap<NamedSubject, ReadonlySet<string>>): Look[] {
  const of = (type: NamedSubject): string[] => [...(ids.get(type) ?? [])];
  const looks: Record<NamedSubject, (wanted: string[]) => Look> = {
    client: (wanted) =>
      db
        .selectFrom('clients')
        .select([literal('client'), 'id', 'name', noOwner])
        .where('id', 'in', wanted) as Look,
    school: (wanted) =>
      db
        .selectFrom('schools')
        .select([literal('school'), 'identifier as id', 'name', noOwner])
        .where('identifier', 'in', wanted) as Look,
    list: (wanted) =>
      db
        .selectFrom('lists')
        .leftJoin('schools', 'schools.identifier', 'lists.school_identifier')
        .select([literal('list'), 'lists.identifier as id', 'lists.name as name', 'schools.name as owner'])
        .where('lists.identifier', 'in', wanted) as Look,
    subscription: (wanted) =>
      db
        .selectFrom('subscriptions')
        .leftJoin('clients', 'clients.id', 'subscriptions.client_ref')
        .select([
          literal('subscription'),
          'subscriptions.id as id',
          'subscriptions.event as name',
          'clients.name as owner',
        ])
        .where('subscriptions.id', 'in', wanted) as Look,
    operator: (wanted) =>
      db
        .selectFrom('operators')
        .select([literal('operator'), 'sub as id', sql<string>`coalesce(email, name, sub)`.as('name'), noOwner])
        .where('sub', 'in', wanted) as Look,
    'api-token': (wanted) =>
      db
        .selectFrom('api_tokens')
        .select([literal('api-token'), 'id', 'name', noOwner])
        .where('id', 'in', wanted) as Look,
  };
  return NAMED_SUBJECTS.filter((type) => of(type).length > 0).map((type) => looks[type](of(type)));
}

/** The named subjects these records refer to, ordered by kind and id; no query when there are none. */
export async function subjectsOf(db: Executor, records: readonly AuditRecord[]): Promise<AuditSubject[]> {
  const [first, ...rest] = lookUps(db, referencesOf(records));
  if (first === undefined) return [];
  const rows = await rest.reduce((query, next) => query.unionAll(next), first).execute();
  const found = new Map<string, AuditSubject>();
  for (const row of rows) {
    if (!isNamedSubject(row.type) || row.name === null) continue;
    // An operator known to two identity providers under one subject is named once.
    found.set(`${row.type}:${row.id}`, { type: row.type, id: row.id, name: row.name, owner: row.owner });
  }
  const order = (s: AuditSubject): number => NAMED_SUBJECTS.indexOf(s.type);
  return [...found.values()].sort((a, b) => order(a) - order(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
