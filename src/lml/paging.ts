/** Page request and sizes of the LML collections; the page shape is the shared one in src/paging.ts. */

export interface PageQuery {
  limit: number;
  /** Identifier of the last item of the previous page. */
  startingAfter?: string | undefined;
}

export const DEFAULT_LML_PAGE = 50;
export const MAX_LML_PAGE = 200;
