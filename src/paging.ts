/** Cursor paging shared by every collection: `{has_more, data}`, as the real subscription list shows. */

export interface Page<T> {
  has_more: boolean;
  data: T[];
}

/** `rows` was fetched with limit + 1: the extra row only tells whether another page exists. */
export function toPage<Row, View>(rows: readonly Row[], limit: number, view: (row: Row) => View): Page<View> {
  return { has_more: rows.length > limit, data: rows.slice(0, limit).map(view) };
}
