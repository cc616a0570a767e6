/**
 * One word for one state: the pages show the API's own word for a state ("succeeded",
 * "failed", "pending", …), exactly as the API and the CLI say it, with a human label beside it
 * ("succeeded · delivered"). Every label comes from this one map, so a state reads the same on
 * every page of the console and the portal.
 */
import { localState } from './i18n.js';
import { badge } from './widgets.js';

export const STATE_LABELS = {
  delivery: {
    pending: 'queued',
    succeeded: 'delivered',
    failed: 'not delivered',
    cancelled: 'not sent: client revoked',
  },
  /** A pending delivery that was attempted already and waits for its next scheduled attempt. */
  retrying: {
    pending: 'retrying',
  },
  /** An active subscription whose attempts fail: still sent to, but nothing arrives. */
  failing: {
    active: 'not received',
  },
  subscription: {
    active: 'receiving',
    disabled: 'nothing is sent',
    revoked: 'ended: client revoked',
  },
  client: {
    active: 'credentials work',
    revoked: 'credentials refused',
  },
  list: {
    created: 'draft',
    validated: 'checked, not public',
    published: 'public',
    archived: 'hidden',
  },
  offer: {
    draft: 'not for sale yet',
    published: 'for sale',
    reserved: 'on hold',
    sold: 'sold',
    withdrawn: 'off sale',
  },
} as const satisfies Record<string, Record<string, string>>;

export type StateKind = keyof typeof STATE_LABELS;

/** The label of a state, or none for a word the map does not know (a newer server). */
export function stateLabel(kind: StateKind, word: string): string | undefined {
  const labels: Readonly<Record<string, string>> = STATE_LABELS[kind];
  const label = localState(kind, word) ?? labels[word];
  return label === undefined || label === word ? undefined : label;
}

/** "succeeded · delivered": the API's word first, the label beside it. */
export function stateText(kind: StateKind, word: string): string {
  const label = stateLabel(kind, word);
  return label === undefined ? word : `${word} · ${label}`;
}

/** A badge with the API's word and its label; coloured by the word unless `colour` says otherwise. */
export function stateBadge(kind: StateKind, word: string, colour: string = word): HTMLElement {
  const node = badge(stateText(kind, word), colour);
  node.dataset.state = word;
  return node;
}

/** The options of a status filter: '' (any) and every state of `kind`, each with its label. */
export function stateOptions(kind: StateKind, anyText: string): readonly (readonly [string, string])[] {
  return [['', anyText], ...Object.keys(STATE_LABELS[kind]).map((word) => [word, stateText(kind, word)] as const)];
}
