/**
 * The operators' tables as Kysely sees them (schema.ts composes the database; migration 0015). Times
 * are epoch milliseconds, as everywhere in the schema.
 */

export interface OperatorsTable {
  /** The provider's issuer identifier and the identity's subject there: together, one person. */
  issuer: string;
  sub: string;
  email: string | null;
  name: string | null;
  /** As of the last sign-in: `viewer`, `support` or `admin`. */
  role: string;
  disabled_at: number | null;
  first_sign_in_at: number;
  last_sign_in_at: number;
}

/** A sign-in between the redirect to the provider and its callback. */
export interface OidcSignInsTable {
  /** SHA-256 of the value in the browser's sign-in cookie. */
  id_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  expires_at: number;
}

/** A named API token for automation (`shelfmark operators token create`). */
export interface ApiTokensTable {
  /** `tok_…`: the token's public part, also the first part of the token itself. */
  id: string;
  name: string;
  role: string;
  /** Keyed hash (SECRET_PEPPER) of the secret part; the secret itself is shown once. */
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}
