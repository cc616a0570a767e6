/**
 * What the signed-in operator's role allows in the console. The admin API refuses the rest anyway
 * (403 naming the role); here the controls for it are disabled with the reason beside them, and the
 * Operators section shows only to admins. The controls are recognised by their labels, in one table.
 */
import type { Role } from '../../vocabulary/actor.js';
import { h, main } from '../common/dom.js';
import { type MessageKey, t, word } from '../common/i18n.js';

export interface SignedIn {
  role: Role;
  operator: { sub: string; email: string | null; name: string | null; role: Role } | null;
}

/** Set at sign-in from GET /dashboard/api/session; a session of the admin token is an admin's. */
export const signedIn: SignedIn = { role: 'admin', operator: null };

const ORDER: readonly Role[] = ['viewer', 'support', 'admin'];
export const may = (needed: Role): boolean => ORDER.indexOf(signedIn.role) >= ORDER.indexOf(needed);

/**
 * Labels of the controls that change something, and the role each needs (as the admin routes declare).
 * A control whose label says too little (a field and its button) carries `data-needs` instead.
 */
const NEEDS: readonly (readonly [readonly MessageKey[], Role])[] = [
  [['clients.portalLink', 'retry.retry', 'retry.now', 'health.resend', 'health.recover', 'common.reenable'], 'support'],
  [
    [
      'clients.create',
      'lml.createSchool',
      'lml.createList',
      'offers.create',
      'clients.resetSecret',
      'clients.rotate',
      'clients.revoke',
      'list.saveName',
      'offers.savePrice',
      'offers.editPrice',
      'offers.setStatus',
      'offers.withdraw',
      'common.delete',
      'list.publish',
      'list.unpublish',
      'list.archive',
      'list.validate',
      'list.restore',
      'list.backToDraft',
      'list.rename',
      'item.remove',
      'item.add',
      'form.subscribe',
      'subs.subscribeClient',
      'item.up',
      'item.down',
      'operators.disable',
      'operators.enable',
    ],
    'admin',
  ],
];

/** Each label in the page's language, and the role it needs. */
const NEEDED = new Map(NEEDS.flatMap(([keys, role]) => keys.map((key) => [t(key), role] as const)));
const neededFor = (label: string): Role | undefined => NEEDED.get(label);

const isRole = (value: string | undefined): value is Role => value !== undefined && ORDER.includes(value as Role);

type Control = HTMLButtonElement | HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** Marks a group of controls (a field with its button) as needing `role`: all of it is gated together. */
export function needs<E extends HTMLElement>(role: Role, element: E): E {
  element.dataset.needs = role;
  return element;
}

function disable(control: Control, needed: Role): void {
  control.disabled = true;
  control.dataset.needsRole = needed;
  control.title = t('roles.needs', { needed: word('roles', needed), role: word('roles', signedIn.role) });
}

/** Disables the controls under `root` the role may not use, each saying why. */
export function gateControls(root: ParentNode = main): void {
  if (signedIn.role === 'admin') return;
  for (const group of root.querySelectorAll<HTMLElement>('[data-needs]')) {
    const needed = group.dataset.needs;
    if (!isRole(needed) || may(needed)) continue;
    for (const control of group.querySelectorAll<Control>('button, input, select, textarea'))
      if (control.dataset.needsRole === undefined) disable(control, needed);
  }
  for (const control of root.querySelectorAll<HTMLButtonElement>('button')) {
    if (control.dataset.needsRole !== undefined || control.closest('nav') !== null) continue;
    const needed = neededFor((control.textContent ?? '').trim());
    if (needed === undefined || may(needed)) continue;
    disable(control, needed);
  }
}

let watching = false;

/** Keeps every drawing of the console gated, whichever section draws it. */
export function watchControls(): void {
  if (watching) return;
  watching = true;
  gateControls();
  new MutationObserver(() => gateControls()).observe(main, { childList: true, subtree: true });
}

/** One line above each section for a role below admin: what it may do, so disabled buttons surprise nobody. */
export function roleNote(): HTMLElement | null {
  if (signedIn.role === 'admin') return null;
  const can = signedIn.role === 'viewer' ? t('roles.viewer') : t('roles.support');
  const role = word('roles', signedIn.role);
  return h('p', { className: 'role-note', id: 'role-note', role: 'note' }, t('roles.note', { role, can }));
}
