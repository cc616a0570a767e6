/**
 * Cursor paging, one home for every collection: the page shape `{has_more, data}` (as the real
 * subscription list shows), the page request, and the keyset condition that reads the rows after a
 * cursor in (created, id) order, i.e. `created >= c AND (created > c OR (created = c AND id > i))`,
 * or `<` for newest-first pages. Stable under concurrent inserts, unlike OFFSET, and served by the
 * (created_at, id) indexes.
 */
import {
  type Expression,
  type ExpressionBuilder,
  type RawBuilder,
  type SqlBool,
  type StringReference,
  sql,
} from 'kysely';

export interface Page<T> {
  has_more: boolean;
  data: T[];
}

/** `rows` was fetched with limit + 1: the extra row only tells whether another page exists. */
export function toPage<Row, View>(rows: readonly Row[], limit: number, view: (row: Row) => View): Page<View> {
  return { has_more: rows.length > limit, data: rows.slice(0, limit).map(view) };
}

/** A page request of the LML collections. */
export interface PageQuery {
  limit: number;
  /** Identifier of the last item of the previous page. */
  startingAfter?: string | undefined;
}

/** Page sizes of the LML collections. */
export const DEFAULT_LML_PAGE = 50;
export const MAX_LML_PAGE = 200;

export interface Cursor {
  created: number;
  id: string;
}

export function afterCursor<DB, TB extends keyof DB>(
  _eb: ExpressionBuilder<DB, TB>,
  columns: { created: StringReference<DB, TB>; id: StringReference<DB, TB> },
  after: Cursor,
  direction: '>' | '<' = '>',
): Expression<SqlBool> {
  return keysetCondition(columns, after, direction);
}

/** The same condition for raw SQL, on columns named as text (the pruner's walks). */
export function keysetCondition(
  columns: { created: string; id: string },
  after: Cursor,
  direction: '>' | '<' = '>',
): RawBuilder<SqlBool> {
  const created = sql.ref(columns.created);
  const id = sql.ref(columns.id);
  const op = sql.raw(direction);
  // The first term bounds the index range (both engines seek to the cursor instead of filtering every
  // row before it); the second is the exact keyset order.
  const bound = sql.raw(direction === '<' ? '<=' : '>=');
  return sql<SqlBool>`(${created} ${bound} ${after.created} and (${created} ${op} ${after.created} or (${created} = ${after.created} and ${id} ${op} ${after.id})))`;
}
