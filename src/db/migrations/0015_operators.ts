import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * Operators by name: the people who signed in to the console through the OpenID Connect
 * provider, the sign-ins in progress, and the operator behind each console session.
 *
 * - `operators`: one row per identity (issuer + subject), its e-mail, name and role as of the last
 *   sign-in (a role change at the provider applies at the next one) and `disabled_at`.
 * - `oidc_sign_ins`: state, nonce and PKCE verifier of a sign-in between the redirect to the provider
 *   and its callback, keyed by the hash of a cookie value; a callback consumes its row once, so the
 *   callback of any node can finish a sign-in another node started.
 * - `web_sessions.operator_*`: who a console session belongs to (null: opened with the admin token) and
 *   the ID token the provider's logout takes as a hint. `operator_sub` is indexed: disabling an
 *   operator deletes their sessions, which every node reads per request, so it ends them everywhere.
 * - `api_tokens`: named tokens for automation, each with a role; only a keyed hash of the secret is
 *   kept, as for client secrets.
 */
export const operators: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('operators')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('sub', 'text', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('name', 'text')
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('disabled_at', 'bigint')
      .addColumn('first_sign_in_at', 'bigint', (c) => c.notNull())
      .addColumn('last_sign_in_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('operators_pk', ['issuer', 'sub'])
      .execute();
    await db.schema
      .createTable('oidc_sign_ins')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    for (const column of [
      'operator_issuer',
      'operator_sub',
      'operator_email',
      'operator_name',
      'operator_role',
      'id_token',
    ])
      await db.schema.alterTable('web_sessions').addColumn(column, 'text').execute();
    await db.schema.createIndex('web_sessions_operator').on('web_sessions').column('operator_sub').execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropIndex('web_sessions_operator').ifExists().execute();
    for (const column of [
      'id_token',
      'operator_role',
      'operator_name',
      'operator_email',
      'operator_sub',
      'operator_issuer',
    ])
      await db.schema.alterTable('web_sessions').dropColumn(column).execute();
    await db.schema.dropTable('api_tokens').ifExists().execute();
    await db.schema.dropTable('oidc_sign_ins').ifExists().execute();
    await db.schema.dropTable('operators').ifExists().execute();
  },
};
