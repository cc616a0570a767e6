/**
 * Which role an identity signs in with, from its claims and the settings: the strongest role any of
 * its role-claim values maps to (OIDC_ROLE_CLAIM, OIDC_ROLE_MAP), `admin` for an e-mail named in
 * OPERATOR_ADMINS, else OIDC_DEFAULT_ROLE, else none (the sign-in is refused). Read at every sign-in,
 * so a change at the provider applies at the next one.
 */
import type { Config } from '../config.js';
import { ROLES, type Role } from '../vocabulary/actor.js';

export type RoleSettings = Pick<Config, 'oidcRoleClaim' | 'oidcRoleMap' | 'operatorAdmins' | 'oidcDefaultRole'>;

export type RoleDecision =
  | { role: Role; because: string }
  /** `claim`: the role claim and the values it carried, when one is configured. */
  | { role: null; because: string; claim?: { name: string; values: string } };

/** A claim's values as text: a string, a list of strings, or (Keycloak's realm_access) nested by dots. */
function claimValues(claims: Record<string, unknown>, name: string): string[] {
  let value: unknown = claims;
  for (const part of name.split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

const stronger = (a: Role | null, b: Role): Role => (a === null || ROLES.indexOf(b) > ROLES.indexOf(a) ? b : a);

export function roleFromClaims(claims: Record<string, unknown>, settings: RoleSettings): RoleDecision {
  let role: Role | null = null;
  let because = '';
  if (settings.oidcRoleClaim !== undefined) {
    const values = claimValues(claims, settings.oidcRoleClaim);
    for (const { value, role: mapped } of settings.oidcRoleMap) {
      if (values.includes(value) && stronger(role, mapped) !== role) {
        role = mapped;
        because = `${settings.oidcRoleClaim} contains ${value}`;
      }
    }
  }
  const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
  // An e-mail the provider says it has not verified names nobody.
  if (email !== undefined && claims.email_verified !== false && settings.operatorAdmins.includes(email)) {
    role = 'admin';
    because = 'the e-mail is in OPERATOR_ADMINS';
  }
  if (role !== null) return { role, because };
  if (settings.oidcDefaultRole === 'viewer') return { role: 'viewer', because: 'OIDC_DEFAULT_ROLE=viewer' };
  const claim =
    settings.oidcRoleClaim === undefined
      ? undefined
      : { name: settings.oidcRoleClaim, values: JSON.stringify(claimValues(claims, settings.oidcRoleClaim)) };
  const claimText =
    claim === undefined
      ? 'no role claim is configured'
      : `the claim ${claim.name} carries ${claim.values}, which OIDC_ROLE_MAP does not map`;
  return {
    role: null,
    because: `this identity has no Shelfmark role: ${claimText}, and its e-mail is not in OPERATOR_ADMINS`,
    ...(claim === undefined ? {} : { claim }),
  };
}
