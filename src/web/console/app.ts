/**
 * The console's state and its moves: `act` (a state change, reported in the notice bar), `go` (open a
 * place: a section, an item in it, the section's filters — recorded in the history, so every place has
 * its address) and `show` (draw the current place again). The admin token is exchanged for an HttpOnly
 * session cookie at sign-in; this script keeps only the session's CSRF token, in memory.
 */
import { makeApi, problemText } from '../common/api.js';
import { drawSection, notice } from '../common/dom.js';
import { t } from '../common/i18n.js';
import { createRouter, linkTo, type Place } from '../common/router.js';

export type Section = (root: HTMLElement) => Promise<void>;

export const state = {
  csrfToken: '',
  current: 'overview',
  /** The item the section shows in detail (a delivery id, a list identifier); '' for the section itself. */
  detail: '',
  /** The section's filters, as its address carries them. */
  query: {} as Readonly<Record<string, string>>,
};

/** Filled by main.ts: every section by its data-section name. */
export const sections: Record<string, Section> = {};

/** Section names and the words of their addresses: /dashboard/lists is the "lml" section. */
export const router = createRouter('/dashboard', [
  ['overview', 'overview'],
  ['clients', 'clients'],
  ['lml', 'lists'],
  ['offers', 'offers'],
  ['subscriptions', 'subscriptions'],
  ['deliveries', 'deliveries'],
  ['storage', 'storage'],
  ['operators', 'operators'],
  ['audit', 'audit'],
]);

/** Set by main.ts: what to do when the session has ended. */
export const hooks = { signIn: (_message?: string): void => undefined };

export const api = makeApi(
  '/api/admin/v1',
  () => state.csrfToken,
  () => hooks.signIn(t('signin.sessionEnded')),
);
export const session = makeApi('/dashboard/api', () => state.csrfToken);

export interface ActOptions<T> {
  /** What happened, said from the answer ("List vwo 5 published"): the notice after a success. */
  done: (data: T) => string;
  /** The events the change emitted, for the notice bar. */
  events?: (data: T) => string;
  /** Leave the page as it is (the caller shows the result itself). */
  stay?: boolean;
}

/**
 * Runs a mutating call, re-renders unless told to stay, then reports the outcome in the notice bar:
 * what happened on success, `label` (the action, "Publish list vwo 5") and the problem on failure.
 */
export async function act<T = unknown>(
  label: string,
  method: string,
  path: string,
  body: unknown,
  options: ActOptions<T>,
) {
  const result = await api<T>(method, path, body);
  if (!result.ok) notice(t('common.failed', { label, problem: problemText(result) }), true);
  else {
    // Re-render first: when the notice shows, the page already shows the change (a test reading the page
    // right after the notice saw the old tree on a slow machine, and so would a person).
    if (!options.stay) await show(state.current, true);
    const events = options.events
      ? t('common.eventsEmitted', { events: options.events(result.data) || t('common.none') })
      : '';
    notice(options.done(result.data) + events);
  }
  return result;
}

/** Each drawing's number: a slower, older drawing never replaces a newer one (quick Back and Forward). */
let drawing = 0;

async function draw(keepNotice: boolean): Promise<void> {
  const mine = ++drawing;
  await drawSection(
    sections[state.current],
    state.current,
    keepNotice,
    () => state.csrfToken !== '' && mine === drawing,
  );
}

export interface GoOptions {
  keepNotice?: boolean;
  /** Replace the current history entry instead of adding one (a filter change, a redirect). */
  replace?: boolean;
  /** Arrived by Back/Forward or at start: the address is already right. */
  arrived?: boolean;
}

/** Opens a place of the console and records it in the history. */
export async function go(place: Partial<Place> & { section: string }, options: GoOptions = {}): Promise<void> {
  state.current = place.section;
  state.detail = place.id ?? '';
  state.query = place.query ?? {};
  if (!options.arrived) router.record({ ...place, id: state.detail, query: state.query }, options.replace);
  await draw(options.keepNotice ?? false);
}

/**
 * Draws a section: the current place again (same item and filters) when it is the section shown, else
 * the section from its start (its own address).
 */
export async function show(name: string, keepNotice = false): Promise<void> {
  if (name === state.current) await draw(keepNotice);
  else await go({ section: name }, { keepNotice });
}

/** A link to a place of the console (a real address; a plain click stays in the page). */
export const link = (place: Partial<Place> & { section: string }, text: string, className?: string) =>
  linkTo(router, place, (target) => go(target), text, className);

export const path = (...parts: string[]): string => parts.map((part) => encodeURIComponent(part)).join('/');
