/**
 * The console's state and its two moves: `act` (a state change, reported in the notice bar) and
 * `show` (draw a section). The admin token is exchanged for an HttpOnly session cookie at sign-in;
 * this script keeps only the session's CSRF token, in memory.
 */
import { makeApi, problemText } from '../common/api.js';
import { drawSection, notice } from '../common/dom.js';

export type Section = (root: HTMLElement) => Promise<void>;

export const state = {
  csrfToken: '',
  current: 'overview',
  filters: { ean: '', status: '', subscriptionId: '', showArchived: false },
};

/** Filled by main.ts: every section by its data-section name. */
export const sections: Record<string, Section> = {};

/** Set by main.ts: what to do when the session has ended. */
export const hooks = { signIn: (_message?: string): void => undefined };

export const api = makeApi(
  '/api/admin/v1',
  () => state.csrfToken,
  () => hooks.signIn('Your session ended; sign in again.'),
);
export const session = makeApi('/dashboard/api', () => state.csrfToken);

export interface ActOptions<T> {
  /** The events the change emitted, for the notice bar. */
  events?: (data: T) => string;
  /** Leave the page as it is (the caller shows the result itself). */
  stay?: boolean;
}

/** Runs a mutating call, re-renders unless told to stay, then reports the outcome in the notice bar. */
export async function act<T = unknown>(
  label: string,
  method: string,
  path: string,
  body?: unknown,
  options: ActOptions<T> = {},
) {
  const result = await api<T>(method, path, body);
  if (!result.ok) notice(`${label} failed: ${problemText(result)}`, true);
  else {
    // Re-render first: when "done" shows, the page already shows the change (a test reading the page
    // right after the notice saw the old tree on a slow machine, and so would a person).
    if (!options.stay) await show(state.current, true);
    const events = options.events ? ` Events emitted: ${options.events(result.data) || 'none'}.` : '';
    notice(`${label}: done.${events}`);
  }
  return result;
}

export async function show(name: string, keepNotice = false): Promise<void> {
  state.current = name;
  await drawSection(sections[name], name, keepNotice, () => state.csrfToken !== '');
}

export const path = (...parts: string[]): string => parts.map((part) => encodeURIComponent(part)).join('/');
