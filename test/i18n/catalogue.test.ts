/**
 * The message catalogues: the Dutch one has exactly the English one's keys, with the same placeholders
 * and plural forms; every key is used by some page; the vocabularies cover their sets (problem codes,
 * events, roles, conditions, the states the pages label) and nothing beyond them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES } from '../../src/delivery/model.js';
import { EVENT_LABELS } from '../../src/events/catalogue.js';
import { EN, NL, VOCABULARIES } from '../../src/i18n/catalogue.js';
import { type Message, render } from '../../src/i18n/message.js';
import { states as dutchStates } from '../../src/i18n/nl/vocabulary.js';
import { OFFER_CONDITIONS, OFFER_STATUSES } from '../../src/offers/model.js';
import { PROBLEMS } from '../../src/problems/catalogue.js';
import { SUBSCRIPTION_STATUSES } from '../../src/subscriptions/model.js';
import { ROLES } from '../../src/vocabulary/actor.js';
import { LIST_STATUSES } from '../../src/vocabulary/list-statuses.js';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path.endsWith('/i18n') ? [] : sources(path);
    return path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

const placeholders = (message: Message): string[] => {
  const forms = typeof message === 'string' ? [message] : [message.one, message.other];
  return [...new Set(forms.flatMap((form) => [...form.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '')))].sort();
};

/** The English state labels as src/web/common/states.ts writes them (that module needs a DOM to load). */
function englishStates(): Record<string, string[]> {
  const text = readFileSync(join(SRC, 'web/common/states.ts'), 'utf8');
  const block = text.slice(text.indexOf('STATE_LABELS = {'), text.indexOf('} as const satisfies'));
  const kinds: Record<string, string[]> = {};
  let kind = '';
  for (const line of block.split('\n')) {
    const opened = /^ {2}(\w+): \{/.exec(line);
    if (opened?.[1]) {
      kind = opened[1];
      kinds[kind] = [];
    }
    const entry = /^ {4}(\w+): '/.exec(line);
    if (entry?.[1] && kind) kinds[kind]?.push(entry[1]);
  }
  return kinds;
}

describe('message catalogues', () => {
  it('the Dutch catalogue has exactly the English keys, with the same placeholders and plural forms', () => {
    expect(Object.keys(NL).sort()).toEqual(Object.keys(EN).sort());
    for (const [key, english] of Object.entries(EN)) {
      const dutch = NL[key as keyof typeof EN];
      expect(placeholders(dutch), key).toEqual(placeholders(english));
      expect(typeof dutch, key).toBe(typeof english);
    }
  });

  it('every key is used by a page', () => {
    const code = sources(SRC).join('\n');
    const unused = Object.keys(EN).filter((key) => !code.includes(`'${key}'`));
    expect(unused).toEqual([]);
  });

  it('a notice says what happened, never a bare "done" after the action\'s name', () => {
    const bare = /(:\s*(done|gelukt)\b)|^\{label\}/i;
    const forms = (message: Message): string[] =>
      typeof message === 'string' ? [message] : [message.one, message.other];
    const found = [...Object.entries(EN), ...Object.entries(NL)].filter(([, message]) =>
      forms(message).some((form) => bare.test(form) && !form.includes('{problem}')),
    );
    expect(found).toEqual([]);
  });

  it('plural forms follow Intl.PluralRules in each language', () => {
    expect(render('nl', NL['overview.attemptsTotal'], { count: 1 })).toBe('1 poging in de laatste 24 uur');
    expect(render('nl', NL['overview.attemptsTotal'], { count: 1234 })).toBe('1.234 pogingen in de laatste 24 uur');
    expect(render('en', EN['overview.attemptsTotal'], { count: 0 })).toBe('0 attempts in the last 24 hours');
  });

  it('the vocabularies cover their sets, in both languages', () => {
    const sets: Record<string, readonly string[]> = {
      problems: Object.keys(PROBLEMS),
      events: Object.keys(EVENT_LABELS),
      roles: ROLES,
      conditions: OFFER_CONDITIONS,
    };
    for (const [locale, words] of Object.entries(VOCABULARIES))
      for (const [vocabulary, set] of Object.entries(sets))
        expect(Object.keys(words[vocabulary as keyof typeof words]).sort(), `${locale} ${vocabulary}`).toEqual(
          [...set].sort(),
        );
    expect(Object.keys(VOCABULARIES.nl.fields).sort()).toEqual(Object.keys(VOCABULARIES.en.fields).sort());
  });

  it('every state the pages label has a Dutch label, and every Dutch label is of a real state', () => {
    const domains: Record<string, readonly string[]> = {
      delivery: DELIVERY_STATUSES,
      retrying: ['pending'],
      failing: ['active'],
      subscription: SUBSCRIPTION_STATUSES,
      client: ['active', 'revoked'],
      list: LIST_STATUSES,
      offer: OFFER_STATUSES,
    };
    const labelled: Record<string, Readonly<Record<string, string>>> = dutchStates;
    for (const [kind, words] of Object.entries(englishStates())) {
      expect(Object.keys(domains), kind).toContain(kind);
      for (const word of words) expect(labelled[kind]?.[word], `${kind}.${word}`).toBeDefined();
    }
    for (const [kind, words] of Object.entries(labelled))
      for (const word of Object.keys(words)) expect(domains[kind], `${kind}.${word}`).toContain(word);
  });
});
