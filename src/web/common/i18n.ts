/**
 * The page's language: the one the server rendered the shell in (`<html lang>`, from the NL | EN
 * switch's cookie or the browser's Accept-Language). Messages come from the catalogues (src/i18n);
 * dates, times, numbers and money are formatted for that language, in the browser's own region of it
 * where it has one (en-GB keeps its 24-hour clock), so choosing EN in a Dutch browser switches them too.
 */
import { type MessageKey, translator, type Vocabulary } from '../../i18n/catalogue.js';
import { isLocale, type Locale } from '../../i18n/locale.js';
import type { Params } from '../../i18n/message.js';
import { states as dutchStates } from '../../i18n/nl/vocabulary.js';
import type { Child } from './dom.js';

const declared = document.documentElement.lang;
export const locale: Locale = isLocale(declared) ? declared : 'en';

/** The browser's tag for the page's language (nl-BE, en-GB), else the language itself. */
export const formatLocale: string =
  navigator.languages.find((tag) => tag.toLowerCase().split('-')[0] === locale) ?? locale;

const messages = translator(locale, formatLocale);

export type { MessageKey };
export const t = (key: MessageKey, params?: Params): string => messages.t(key, params);

/** A word of a vocabulary in the page's language, else the given fallback (the server's English). */
export const word = (vocabulary: Vocabulary, value: string, fallback: string = value): string =>
  messages.word(vocabulary, value) ?? fallback;

/** The label beside a state's API word in the page's language; undefined where the English label (states.ts) stands. */
export function localState(kind: string, value: string): string | undefined {
  if (locale !== 'nl') return undefined;
  const labels: Readonly<Record<string, Readonly<Record<string, string>>>> = dutchStates;
  return labels[kind]?.[value];
}

/**
 * A message whose placeholders are nodes (a <time>, a badge): the text around them from the
 * catalogue, the nodes in their places. Text-only placeholders may be passed too.
 */
export function parts(key: MessageKey, params: Readonly<Record<string, Child>>): Child[] {
  const marker = '\u0000';
  const texts: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(params))
    texts[name] = typeof value === 'string' || typeof value === 'number' ? value : `${marker}${name}${marker}`;
  const rendered = messages.t(key, texts);
  return rendered
    .split(marker)
    .map((piece, index) => (index % 2 === 1 ? (params[piece] ?? null) : piece))
    .filter((piece) => piece !== '');
}

export const formatNumber = (value: number, options?: Intl.NumberFormatOptions): string =>
  new Intl.NumberFormat(formatLocale, options).format(value);

export const euro = (value: number): string => formatNumber(value, { style: 'currency', currency: 'EUR' });

/** The header's NL | EN switch: it goes through the server (which sets the cookie) and back to this place. */
export function wireLanguageSwitch(): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('a[data-lang]'))
    link.addEventListener('click', () => {
      const back = location.pathname + location.search;
      link.href = `/language/${link.dataset.lang ?? 'en'}?back=${encodeURIComponent(back)}`;
    });
}
