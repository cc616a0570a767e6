/** The bearer guard's refusals, with the RFC 6750 challenge each one carries. */
import { Problem } from '../problems/catalogue.js';
import type { Scope } from './scopes.js';

const bearerChallenge = (error: string, description: string): Record<string, string> => ({
  'www-authenticate': `Bearer realm="shelfmark", error="${error}", error_description="${description}"`,
});

export const tokenProblems = {
  missing: () =>
    new Problem(
      'unauthenticated',
      'send Authorization: Bearer <access token>',
      {},
      { 'www-authenticate': 'Bearer realm="shelfmark"' },
    ),
  invalid: () =>
    new Problem(
      'invalid-token',
      'the access token is malformed, forged or no longer valid',
      {},
      bearerChallenge('invalid_token', 'invalid token'),
    ),
  expired: () =>
    new Problem(
      'token-expired',
      'the access token has expired; obtain a new one from /api/auth/token',
      {},
      bearerChallenge('invalid_token', 'token expired'),
    ),
  /** Several scopes: one of them would do (RFC 6750 lists them space-separated). */
  scope: (scope: Scope | string) =>
    new Problem(
      'insufficient-scope',
      scope.includes(' ') ? `this call needs one of the scopes ${scope}` : `this call needs the scope ${scope}`,
      { requiredScope: scope },
      {
        'www-authenticate': `Bearer realm="shelfmark", error="insufficient_scope", scope="${scope}"`,
      },
    ),
};
