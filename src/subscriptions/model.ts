/** The page sizes of subscription lists, for the service and the API schemas (schemas.ts). */

export const DEFAULT_SUBSCRIPTION_PAGE = 20;
export const MAX_SUBSCRIPTION_PAGE = 100;
