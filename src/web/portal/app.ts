/**
 * The portal's state and its moves. The session is an HttpOnly cookie the script cannot read; it
 * keeps only the session's CSRF token in memory.
 */
import type { ClientView } from '../../auth/client-schemas.js';
import { makeApi, problemText } from '../common/api.js';
import { byId, drawSection, h, main, nav, notice } from '../common/dom.js';
import { t } from '../common/i18n.js';
import { createRouter } from '../common/router.js';

export type Section = (root: HTMLElement) => Promise<void>;

/** The signed-in partner's client, as the session answer carries it. */
export type Me = ClientView;

export interface DeliveryFilter {
  subscriptionId?: string;
  event?: string;
  status?: string;
  sinceLocal?: string;
  untilLocal?: string;
}

/** The filter's words in the address: /portal/deliveries?status=failed&event=list.updated&since=… */
const FILTER_PARAMS = {
  subscriptionId: 'subscription',
  event: 'event',
  status: 'status',
  sinceLocal: 'since',
  untilLocal: 'until',
} as const satisfies Record<keyof DeliveryFilter, string>;

/** The address's query for a filter (empty fields left out). */
export function filterQuery(filter: DeliveryFilter): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, param] of Object.entries(FILTER_PARAMS)) {
    const value = filter[key as keyof DeliveryFilter];
    if (value) query[param] = value;
  }
  return query;
}

/** The filter an address names (unknown parameters ignored). */
export function filterOf(query: Readonly<Record<string, string>>): DeliveryFilter {
  const filter: DeliveryFilter = {};
  for (const [key, param] of Object.entries(FILTER_PARAMS)) {
    const value = query[param];
    if (value) filter[key as keyof DeliveryFilter] = value;
  }
  return filter;
}

export const state = {
  csrfToken: '',
  me: null as Me | null,
  current: 'credentials',
  deliveryFilter: {} as DeliveryFilter,
  /** Cursors of the pages before the one shown. */
  pages: [] as string[],
  /** A delivery whose attempts the next drawing of the log opens (after a retry). */
  openDelivery: '',
};

/** Filled by main.ts: every section by its data-section name. */
export const sections: Record<string, Section> = {};

const who = byId('who');

export function signedOut(message?: string): void {
  nav.hidden = true;
  who.textContent = '';
  main.replaceChildren(
    h('div', { className: 'signin' }, [
      h('h1', {}, t('portal.signedOut')),
      h('p', {}, message ?? t('portal.openLink')),
    ]),
  );
}

export const api = makeApi(
  '/portal/api',
  () => state.csrfToken,
  () => signedOut(t('portal.sessionEnded')),
);

/** Runs a mutating call and says in the notice bar what happened (`done`), or what failed and why. */
export async function act<T = unknown>(
  label: string,
  method: string,
  path: string,
  body: unknown,
  done: (data: T) => string,
) {
  const result = await api<T>(method, path, body);
  if (!result.ok) notice(t('common.failed', { label, problem: problemText(result) }), true);
  else notice(done(result.data));
  return result;
}

/** Reloads the signed-in client (name, status, when tokens were last invalidated). */
export async function refreshMe(): Promise<boolean> {
  const result = await api<{ signedIn: boolean; client?: Me; csrfToken?: string }>('GET', '/session');
  if (!result.ok || !result.data.signedIn || !result.data.client || !result.data.csrfToken) return false;
  state.me = result.data.client;
  state.csrfToken = result.data.csrfToken;
  // The name alone: the stylesheet puts the "·" before it only where it shares the line (page.css).
  who.textContent = state.me.name;
  return true;
}

/** Each section's address: /portal/subscriptions, /portal/deliveries/<id>; /portal is the first. */
export const router = createRouter('/portal', [
  ['credentials', 'credentials'],
  ['subscriptions', 'subscriptions'],
  ['deliveries', 'deliveries'],
]);

/**
 * Draws a section and records its address in the history (the delivery about to be opened included),
 * unless `arrived`: the browser is there already (start, Back, Forward).
 */
export async function show(name: string, keepNotice = false, arrived = false): Promise<void> {
  state.current = name;
  // The log's filters are in its address too: reload, Back and a shared link keep them.
  const log = name === 'deliveries';
  if (!arrived)
    router.record({
      section: name,
      id: log ? state.openDelivery : '',
      query: log ? filterQuery(state.deliveryFilter) : {},
    });
  await drawSection(sections[name], name, keepNotice);
}
