/**
 * The LML's vocabulary and bounds, one source for the rules, the API schemas (schemas.ts, which also
 * derives the views' types) and the console's pages.
 */
export const SCHOOL_TYPES = ['HBO', 'MBO', 'WO', 'VO', 'PO'] as const;

/** The most items one list may hold, and the most tags (levels of the structure tree under its school). */
export const MAX_ITEMS = 500;
export const MAX_TAGS = 10;
