/**
 * The message catalogues of the pages people read, one per language, and the translator over them.
 * English is the reference: its keys are the MessageKey type, and the Dutch catalogue must have
 * exactly those keys (the compiler refuses a missing or extra one; test/i18n checks that every key is
 * used). Words named by a domain set (problem codes, events, roles, conditions) are vocabularies keyed
 * by that set.
 */
import { common as enCommon } from './en/common.js';
import { console as enConsole } from './en/console.js';
import { consoleContent as enConsoleContent } from './en/console-content.js';
import { pages as enPages } from './en/pages.js';
import { portal as enPortal } from './en/portal.js';
import * as enWords from './en/vocabulary.js';
import type { Locale } from './locale.js';
import { type Message, type Params, render } from './message.js';
import { common as nlCommon } from './nl/common.js';
import { console as nlConsole } from './nl/console.js';
import { consoleContent as nlConsoleContent } from './nl/console-content.js';
import { pages as nlPages } from './nl/pages.js';
import { portal as nlPortal } from './nl/portal.js';
import * as nlWords from './nl/vocabulary.js';

export const EN = { ...enPages, ...enCommon, ...enConsole, ...enConsoleContent, ...enPortal } as const;
export type MessageKey = keyof typeof EN;
export const NL: { readonly [K in MessageKey]: Message } = {
  ...nlPages,
  ...nlCommon,
  ...nlConsole,
  ...nlConsoleContent,
  ...nlPortal,
};

export const CATALOGUES: Readonly<Record<Locale, { readonly [K in MessageKey]: Message }>> = { en: EN, nl: NL };

export type Vocabulary = 'problems' | 'events' | 'roles' | 'conditions' | 'fields';
export const VOCABULARIES: Readonly<Record<Locale, Readonly<Record<Vocabulary, Readonly<Record<string, string>>>>>> = {
  en: enWords,
  nl: nlWords,
};

/** A language's messages: `t(key, params)`, and `word(vocabulary, word)` (undefined for a word it does not know). */
export interface Translator {
  readonly locale: Locale;
  t(key: MessageKey, params?: Params): string;
  word(vocabulary: Vocabulary, word: string): string | undefined;
}

export function translator(locale: Locale, formatLocale: string = locale): Translator {
  const messages = CATALOGUES[locale];
  const words = VOCABULARIES[locale];
  return {
    locale,
    t: (key, params) => render(formatLocale, messages[key], params),
    word: (vocabulary, word) => (Object.hasOwn(words[vocabulary], word) ? words[vocabulary][word] : undefined),
  };
}
