/**
 * The two languages of the pages people read (console, portal, sign-in and refusal pages, the home
 * page): which one a request gets. A choice made with the header's NL | EN switch is a cookie; without
 * one, the browser's Accept-Language decides: Dutch when it ranks Dutch above English, else English.
 * The API, the CLI, logs and the OpenAPI document stay English.
 */
export const LOCALES = ['en', 'nl'] as const;
export type Locale = (typeof LOCALES)[number];

/** The cookie the switch sets (readable by every page of the origin, server-rendered ones too). */
export const LANGUAGE_COOKIE = 'shelfmark_lang';

export const isLocale = (value: unknown): value is Locale => value === 'en' || value === 'nl';

/** The language of an Accept-Language header: the supported language the browser ranks highest, else English. */
export function fromAcceptLanguage(header: string | undefined): Locale {
  if (!header) return 'en';
  let best: { locale: Locale; q: number; at: number } | undefined;
  header.split(',').forEach((part, at) => {
    const [range = '', ...params] = part.trim().split(';');
    const language = range.trim().toLowerCase().split('-')[0];
    if (!isLocale(language)) return;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) return;
    if (best === undefined || q > best.q) best = { locale: language, q, at };
  });
  return best?.locale ?? 'en';
}

/** The language of a request: the switch's cookie, else Accept-Language. */
export function localeOf(cookie: string | undefined, acceptLanguage: string | undefined): Locale {
  return isLocale(cookie) ? cookie : fromAcceptLanguage(acceptLanguage);
}
