/** The page sizes of subscription lists, for the service and the API schemas (schemas.ts). */

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
