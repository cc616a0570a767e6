/**
 * Named API tokens for automation (`npx shelfmark operators token create --role support --name ci`):
 * each acts with its role on the admin API (actor type `api-token`), is shown once, and is kept only
 * as a keyed hash, like a client secret. A token reads `smt_<id>.<secret>`: the id finds the row, the
 * secret is compared in constant time.
 */
import { randomBytes } from 'node:crypto';
import type { Initiator } from '../audit/initiator.js';
import type { SecretHasher } from '../auth/secret-hash.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { Db } from '../db/database.js';
import { Problem } from '../problems/catalogue.js';
import { type Actor, ROLES, type Role } from '../vocabulary/actor.js';

export const API_TOKEN_PREFIX = 'smt_';

export interface ApiTokenView {
  id: string;
  name: string;
  role: Role;
  status: 'active' | 'revoked';
  createdAt: string;
  lastUsedAt: string | null;
}

/** A token's last use is written at most this often (like a session's idle timer). */
const TOUCH_MS = 60_000;

export class ApiTokens {
  constructor(
    private readonly db: Db,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly work: UnitOfWork,
  ) {}

  /** A new token; the answer is the only place its secret ever appears. */
  async create(name: string, role: Role, by: Initiator): Promise<{ token: string; view: ApiTokenView }> {
    if (!/^[\w.-]{1,64}$/.test(name))
      throw new Problem('validation-failed', 'a token name is 1-64 letters, digits, dots, dashes or underscores');
    if (!(ROLES as readonly string[]).includes(role))
      throw new Problem('validation-failed', `a token role is one of ${ROLES.join(', ')}`);
    const id = `tok_${randomBytes(12).toString('base64url')}`;
    const secret = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.work.run(by, async ({ trx, record }) => {
      const taken = await trx.selectFrom('api_tokens').select('id').where('name', '=', name).executeTakeFirst();
      if (taken !== undefined)
        throw new Problem('conflict', `a token named ${name} exists; revoke it or choose another name`);
      await trx
        .insertInto('api_tokens')
        .values({
          id,
          name,
          role,
          secret_hash: this.hasher.hash(secret),
          created_at: now,
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      record('api-token.created', id, {
        name: { before: null, after: name },
        role: { before: null, after: role },
        secret: { before: null, after: 'rotated' },
      });
    });
    const view: ApiTokenView = { id, name, role, status: 'active', createdAt: isoTime(now), lastUsedAt: null };
    return { token: `${API_TOKEN_PREFIX}${id}.${secret}`, view };
  }

  async list(): Promise<ApiTokenView[]> {
    const rows = await this.db.kysely
      .selectFrom('api_tokens')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      role: row.role as Role,
      status: row.revoked_at === null ? 'active' : 'revoked',
      createdAt: isoTime(Number(row.created_at)),
      lastUsedAt: row.last_used_at === null ? null : isoTime(Number(row.last_used_at)),
    }));
  }

  /** Revokes the token of that name (or id); it is refused from the next request on, on every node. */
  async revoke(nameOrId: string, by: Initiator): Promise<void> {
    await this.work.run(by, async ({ trx, record }) => {
      const row = await trx
        .selectFrom('api_tokens')
        .select(['id', 'revoked_at'])
        .where((eb) => eb.or([eb('name', '=', nameOrId), eb('id', '=', nameOrId)]))
        .executeTakeFirst();
      if (row === undefined) throw new Problem('not-found', `no API token is named ${nameOrId}`);
      if (row.revoked_at !== null) return;
      await trx.updateTable('api_tokens').set({ revoked_at: this.clock.now() }).where('id', '=', row.id).execute();
      record('api-token.revoked', row.id, { status: { before: 'active', after: 'revoked' } });
    });
  }

  /** The actor a bearer token stands for; undefined when it is not a live token of ours. */
  async actorOf(bearer: string): Promise<Actor | undefined> {
    if (!bearer.startsWith(API_TOKEN_PREFIX)) return undefined;
    const [id, secret] = bearer.slice(API_TOKEN_PREFIX.length).split('.', 2);
    if (id === undefined || secret === undefined) return undefined;
    const row = await this.db.kysely.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined || row.revoked_at !== null || !this.hasher.matches(secret, row.secret_hash)) return undefined;
    const now = this.clock.now();
    if (row.last_used_at === null || now - Number(row.last_used_at) > TOUCH_MS)
      await this.db.kysely.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
    return { type: 'api-token', id: row.id, name: row.name, role: row.role as Role };
  }
}
