/** The sign-in settings (OIDC_*, OPERATOR_ADMINS) and how claims become a role. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { type RoleSettings, roleFromClaims } from '../../src/identity/role-from-claims.js';

const BASE = { DATABASE_URL: 'sqlite::memory:' };
const OIDC = {
  ...BASE,
  OIDC_ISSUER: 'https://idp.example/realms/shelfmark',
  OIDC_CLIENT_ID: 'shelfmark',
  PUBLIC_BASE_URL: 'https://shelfmark.example',
};

const problem = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('sign-in settings', () => {
  it('parse the issuer, the role map and the admins', () => {
    const config = loadConfig({
      ...OIDC,
      OIDC_CLIENT_SECRET: 'secret',
      OIDC_SCOPES: 'openid email groups',
      OIDC_ROLE_CLAIM: 'groups',
      OIDC_ROLE_MAP: 'shelfmark-admins=admin, support = support',
      OPERATOR_ADMINS: 'Ada@Example.com,bo@example.com',
      OIDC_DEFAULT_ROLE: 'viewer',
    });
    expect(config).toMatchObject({
      oidcIssuer: 'https://idp.example/realms/shelfmark',
      oidcClientId: 'shelfmark',
      oidcClientSecret: 'secret',
      oidcScopes: 'openid email groups',
      oidcRoleClaim: 'groups',
      oidcRoleMap: [
        { value: 'shelfmark-admins', role: 'admin' },
        { value: 'support', role: 'support' },
      ],
      operatorAdmins: ['ada@example.com', 'bo@example.com'],
      oidcDefaultRole: 'viewer',
    });
  });

  it('the issuer is https, or http only on a loopback host', () => {
    expect(problem({ ...OIDC, OIDC_ISSUER: 'http://idp.example' })).toBe(
      'OIDC_ISSUER: expected an https:// URL (http:// only on localhost or 127.x.x.x), got "http://idp.example"',
    );
    expect(problem({ ...OIDC, OIDC_ISSUER: 'http://127.0.0.1:8080/realms/x' })).toBe('accepted');
    expect(problem({ ...OIDC, OIDC_ISSUER: 'http://localhost:8080' })).toBe('accepted');
    expect(problem({ ...OIDC, OIDC_ISSUER: 'http://127.0.0.1.attacker.example' })).toContain('OIDC_ISSUER: expected');
  });

  it('refuses settings that cannot work together, naming each', () => {
    expect(problem({ ...BASE, OIDC_ISSUER: 'https://idp.example' })).toBe(
      'OIDC_CLIENT_ID: is required when OIDC_ISSUER is set\nOIDC_REDIRECT_URI: set it or PUBLIC_BASE_URL: the provider needs one fixed redirect URI',
    );
    expect(problem({ ...OIDC, OIDC_ROLE_MAP: 'a=admin' })).toBe(
      'OIDC_ROLE_CLAIM: is required with OIDC_ROLE_MAP (which claim do its values come from?)',
    );
    expect(problem({ ...OIDC, OIDC_ROLE_CLAIM: 'groups' })).toBe(
      'OIDC_ROLE_MAP: is required with OIDC_ROLE_CLAIM (which claim values are which role?)',
    );
    expect(problem({ ...OIDC, OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'a=owner' })).toBe(
      'OIDC_ROLE_MAP: expected value=role pairs (roles viewer, support, admin) separated by commas, got "a=owner"',
    );
    expect(problem({ ...OIDC, OIDC_DEFAULT_ROLE: 'admin' })).toBe(
      'OIDC_DEFAULT_ROLE: expected one of none, viewer, got "admin"',
    );
    expect(problem({ ...OIDC, OPERATOR_ADMINS: 'ada' })).toBe(
      'OPERATOR_ADMINS: expected e-mail addresses separated by commas, got "ada"',
    );
  });
});

describe('the role of an identity', () => {
  const settings: RoleSettings = {
    oidcRoleClaim: 'groups',
    oidcRoleMap: [
      { value: 'ops', role: 'support' },
      { value: 'shelfmark-admins', role: 'admin' },
      { value: 'readers', role: 'viewer' },
    ],
    operatorAdmins: ['ada@example.com'],
    oidcDefaultRole: 'none',
  };

  it('is the strongest role any value of the claim maps to', () => {
    expect(roleFromClaims({ groups: ['readers', 'ops'] }, settings)).toEqual({
      role: 'support',
      because: 'groups contains ops',
    });
    expect(roleFromClaims({ groups: 'shelfmark-admins' }, settings)).toEqual({
      role: 'admin',
      because: 'groups contains shelfmark-admins',
    });
    // Keycloak's realm roles sit in a nested claim.
    expect(
      roleFromClaims({ realm_access: { roles: ['ops'] } }, { ...settings, oidcRoleClaim: 'realm_access.roles' }),
    ).toEqual({ role: 'support', because: 'realm_access.roles contains ops' });
  });

  it('is admin for a verified e-mail in OPERATOR_ADMINS, never for an unverified one', () => {
    expect(roleFromClaims({ email: 'ADA@example.com', groups: ['readers'] }, settings)).toEqual({
      role: 'admin',
      because: 'the e-mail is in OPERATOR_ADMINS',
    });
    expect(roleFromClaims({ email: 'ada@example.com', email_verified: false }, settings).role).toBeNull();
  });

  it('falls back to OIDC_DEFAULT_ROLE=viewer, else is refused with the reason', () => {
    expect(roleFromClaims({ groups: ['staff'] }, settings)).toEqual({
      role: null,
      because:
        'this identity has no Shelfmark role: the claim groups carries ["staff"], which OIDC_ROLE_MAP does not map, and its e-mail is not in OPERATOR_ADMINS',
      // The refusal page renders its sentence in the visitor's language from these.
      claim: { name: 'groups', values: '["staff"]' },
    });
    expect(roleFromClaims({ groups: ['staff'] }, { ...settings, oidcDefaultRole: 'viewer' })).toEqual({
      role: 'viewer',
      because: 'OIDC_DEFAULT_ROLE=viewer',
    });
    expect(roleFromClaims({}, { ...settings, oidcRoleClaim: undefined, oidcRoleMap: [] }).because).toBe(
      'this identity has no Shelfmark role: no role claim is configured, and its e-mail is not in OPERATOR_ADMINS',
    );
  });
});
