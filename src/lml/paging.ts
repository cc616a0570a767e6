/** Cursor paging shared by the LML collections: `{has_more, data}` as the real subscription list shows. */

export interface PageQuery {
  limit: number;
  /** Identifier of the last item of the previous page. */
  startingAfter?: string | undefined;
}

export interface Page<T> {
  has_more: boolean;
  data: T[];
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** `rows` was fetched with limit + 1: the extra row only tells whether another page exists. */
export function toPage<Row, View>(rows: readonly Row[], limit: number, view: (row: Row) => View): Page<View> {
  return { has_more: rows.length > limit, data: rows.slice(0, limit).map(view) };
}
