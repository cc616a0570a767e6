/**
 * What the signed-in operator's role allows in the console. The admin API refuses the rest anyway
 * (403 naming the role); here the controls for it are disabled with the reason beside them, and the
 * Operators section shows only to admins. The controls are recognised by their labels, in one table.
 */
import type { Role } from '../../operators/actor.js';
import { h, main } from '../common/dom.js';

export interface SignedIn {
  role: Role;
  operator: { sub: string; email: string | null; name: string | null; role: Role } | null;
}

/** Set at sign-in from GET /dashboard/api/session; a session of the admin token is an admin's. */
export const signedIn: SignedIn = { role: 'admin', operator: null };

const ORDER: readonly Role[] = ['viewer', 'support', 'admin'];
export const may = (needed: Role): boolean => ORDER.indexOf(signedIn.role) >= ORDER.indexOf(needed);

/** Labels of the controls that change something, and the role each needs (as the admin routes declare). */
const NEEDS: readonly (readonly [RegExp, Role])[] = [
  [/^(Portal link|Retry|Retry now|Send again|Re-enable|Recover)/, 'support'],
  [
    /^(Create|Reset secret|Rotate webhook secret|Revoke|Save|Edit|Set status|Withdraw|Delete|Publish|Un-publish|Archive|Validate|Back to|Rename|Remove|Add|Subscribe|↑ Up|↓ Down|Disable|Enable)/,
    'admin',
  ],
];

const neededFor = (label: string): Role | undefined => NEEDS.find(([pattern]) => pattern.test(label))?.[1];

/** Disables the controls under `root` the role may not use, each saying why. */
export function gateControls(root: ParentNode = main): void {
  if (signedIn.role === 'admin') return;
  for (const control of root.querySelectorAll<HTMLButtonElement>('button')) {
    if (control.dataset.needsRole !== undefined || control.closest('nav') !== null) continue;
    const needed = neededFor((control.textContent ?? '').trim());
    if (needed === undefined || may(needed)) continue;
    control.disabled = true;
    control.dataset.needsRole = needed;
    control.title = `Needs the ${needed} role; you are signed in as ${signedIn.role}.`;
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
  const can =
    signedIn.role === 'viewer'
      ? 'you can read everything except secrets; changes need the support or admin role'
      : 'you can read, retry, recover and re-enable deliveries and subscriptions and mint portal links; other changes need the admin role';
  return h('p', { className: 'role-note', id: 'role-note', role: 'note' }, `Signed in as ${signedIn.role}: ${can}.`);
}
