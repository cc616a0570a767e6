/**
 * The operator sign-in settings of the configuration schema (schema.ts spreads them in): the OpenID
 * Connect provider, and how its claims become operator roles. See docs/operating/operators-and-audit.md.
 */
import { Type } from '@sinclair/typebox';
import { choice, list, optionalText } from './fields.js';

const SEE = 'see [Operators and audit](operators-and-audit.md)';

export const OIDC_FIELDS = {
  oidcIssuer: optionalText(
    'OIDC_ISSUER',
    'issuerUrl',
    `the operators' OpenID Connect provider (its issuer identifier); set, the console offers "Sign in with <issuer>" instead of the admin-token form (${SEE})`,
    { shown: '— (admin token only)', accepts: 'an `https://` URL; `http://` only on a loopback host' },
  ),
  oidcDisplayName: optionalText(
    'OIDC_DISPLAY_NAME',
    'text',
    'the provider\'s name on the sign-in button ("Sign in with Entra ID") and the home page',
    { shown: "the issuer's host", accepts: 'any text' },
  ),
  oidcClientId: optionalText('OIDC_CLIENT_ID', 'text', 'client id of Shelfmark at the provider', {
    shown: '—',
    accepts: 'any text; required with `OIDC_ISSUER`',
  }),
  oidcClientSecret: optionalText(
    'OIDC_CLIENT_SECRET',
    'text',
    'client secret at the provider; unset: a public client (PKCE alone)',
    { shown: '— (public client)', accepts: 'any text' },
  ),
  oidcScopes: Type.String({
    env: 'OIDC_SCOPES',
    parse: 'text',
    default: 'openid email profile',
    description: 'scopes asked for at sign-in; add the one that releases `OIDC_ROLE_CLAIM` (e.g. `groups`)',
    accepts: 'scopes separated by spaces, `openid` among them',
  }),
  oidcRedirectUri: optionalText(
    'OIDC_REDIRECT_URI',
    'httpUrl',
    'where the provider sends the browser back; register exactly this URL at the provider',
    { shown: '`PUBLIC_BASE_URL` + `/dashboard/login/oidc/callback`', accepts: 'an absolute http(s) URL' },
  ),
  oidcRoleClaim: optionalText('OIDC_ROLE_CLAIM', 'text', 'the claim (text or list) whose values name roles', {
    shown: '—',
    accepts: 'a claim name, e.g. `groups` or `roles`',
  }),
  oidcRoleMap: list(
    Type.Object({
      value: Type.String(),
      role: Type.Union([Type.Literal('viewer'), Type.Literal('support'), Type.Literal('admin')]),
    }),
    'OIDC_ROLE_MAP',
    'roleMap',
    [],
    'claim value → role; an operator with several mapped values gets the strongest role',
    { shown: '—', accepts: '`value=role` pairs separated by commas, roles `viewer`, `support`, `admin`' },
  ),
  operatorAdmins: list(
    Type.String(),
    'OPERATOR_ADMINS',
    'emailList',
    [],
    'e-mail addresses (verified at the provider) that sign in as `admin` whatever the role claim says: the first admins',
    { shown: '— (none)', accepts: 'e-mail addresses separated by commas' },
  ),
  oidcDefaultRole: choice(
    'OIDC_DEFAULT_ROLE',
    ['none', 'viewer'],
    'none',
    'the role of an identity no rule maps: `none` refuses the sign-in, `viewer` admits it read-only',
  ),
};

interface OidcSettings {
  oidcIssuer?: unknown;
  oidcClientId?: unknown;
  oidcRoleClaim?: unknown;
  oidcRoleMap?: unknown;
  oidcRedirectUri?: unknown;
  publicBaseUrl?: unknown;
}

/** The rules across the sign-in variables, as `[variable, problem]` pairs (load.ts reports them). */
export function oidcIssues(config: OidcSettings): [string, string][] {
  const issues: [string, string][] = [];
  const mapped = Array.isArray(config.oidcRoleMap) && config.oidcRoleMap.length > 0;
  if (config.oidcIssuer === undefined) return issues;
  if (config.oidcClientId === undefined) issues.push(['OIDC_CLIENT_ID', 'is required when OIDC_ISSUER is set']);
  if (config.oidcRedirectUri === undefined && config.publicBaseUrl === undefined)
    issues.push(['OIDC_REDIRECT_URI', 'set it or PUBLIC_BASE_URL: the provider needs one fixed redirect URI']);
  if (mapped && config.oidcRoleClaim === undefined)
    issues.push(['OIDC_ROLE_CLAIM', 'is required with OIDC_ROLE_MAP (which claim do its values come from?)']);
  if (!mapped && config.oidcRoleClaim !== undefined)
    issues.push(['OIDC_ROLE_MAP', 'is required with OIDC_ROLE_CLAIM (which claim values are which role?)']);
  return issues;
}
