/**
 * One pruner at a time across every node and process on the database.
 *
 * PostgreSQL: a session-level advisory lock (`pg_try_advisory_lock`) on one pooled connection that the
 * prune then runs all its batches on. It needs no write, cannot outlive its holder (a crashed node's
 * connection closes and the server releases it) and is keyed by the schema, so installations that
 * share a database in separate schemas (and the tests) do not exclude each other.
 *
 * SQLite: a lease row in `settings` (owner and expiry), taken in a write transaction and renewed between
 * batches once a fifth of it has passed. SQLite has no advisory lock, and its file lock is the write lock itself, which the prune
 * must give up between batches so the delivery path can write. A pruner that dies leaves its lease to
 * expire after LEASE_MS; a live one renews it long before.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { Db, Executor } from '../db/database.js';
import type { SessionLock } from '../db/dialect.js';
import { getSetting } from '../db/settings.js';

export const LEASE_SETTING = 'retention.prune_lease';
/** A SQLite lease not renewed for this long is taken over (a running pruner renews it every minute). */
export const LEASE_MS = 5 * 60_000;
/** The advisory lock's first key (the second is the schema's hash): "shelfmark prune" as a number. */
const ADVISORY_CLASS = 0x5e1f_0001;

export interface Held {
  /** Where the prune runs its statements (PostgreSQL: the connection that holds the lock). */
  db: Executor;
  /** Renews the lease; false when it was lost (taken over after expiring): the prune must stop. */
  renew(): Promise<boolean>;
}

export interface PruneLock {
  /** Runs `work` holding the lock; undefined (without running it) when another pruner holds it. */
  withLock<T>(work: (held: Held) => Promise<T>): Promise<T | undefined>;
}

export function pruneLock(db: Db, clock: Clock): PruneLock {
  const session = db.dialect.sessionLock;
  return session === undefined ? leaseLock(db, clock) : advisoryLock(db, session);
}

function advisoryLock(db: Db, session: SessionLock): PruneLock {
  return {
    withLock: (work) =>
      db.kysely.connection().execute(async (connection) => {
        if (!(await session.tryLock(connection, ADVISORY_CLASS))) return undefined;
        try {
          return await work({ db: connection, renew: async () => true });
        } finally {
          // A broken connection cannot unlock, but the server has released its locks already.
          await session.unlock(connection, ADVISORY_CLASS).catch(() => undefined);
        }
      }),
  };
}

interface Lease {
  owner: string;
  until: number;
}

function leaseLock(db: Db, clock: Clock): PruneLock {
  const kysely = db.kysely;
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const read = async (executor: Executor): Promise<Lease | undefined> => {
    const value = await getSetting(executor, LEASE_SETTING);
    return value === undefined ? undefined : (JSON.parse(value) as Lease);
  };
  /** Takes or renews the lease in one write transaction (BEGIN IMMEDIATE: two processes cannot both win). */
  const take = (): Promise<boolean> =>
    kysely.transaction().execute(async (trx) => {
      const now = clock.now();
      const current = await read(trx);
      if (current !== undefined && current.owner !== owner && current.until > now) return false;
      const value = JSON.stringify({ owner, until: now + LEASE_MS } satisfies Lease);
      await trx
        .insertInto('settings')
        .values({ key: LEASE_SETTING, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .execute();
      return true;
    });
  // One run at a time in this process too: a second caller would otherwise renew the first one's lease.
  let running = false;
  let takenAt = 0;
  /**
   * Renews when a fifth of the lease has passed, not after every batch: each renewal is a write
   * transaction of its own, and on SQLite every write transaction is one more wait for the write lock
   * that the delivery path may share.
   */
  const renew = async (): Promise<boolean> => {
    if (clock.now() - takenAt < LEASE_MS / 5) return true;
    takenAt = clock.now();
    return take();
  };
  return {
    async withLock(work) {
      if (running) return undefined;
      running = true;
      try {
        takenAt = clock.now();
        if (!(await take())) return undefined;
        try {
          return await work({ db: kysely, renew });
        } finally {
          await kysely
            .transaction()
            .execute(async (trx) => {
              if ((await read(trx))?.owner === owner)
                await trx.deleteFrom('settings').where('key', '=', LEASE_SETTING).execute();
            })
            .catch(() => undefined);
        }
      } finally {
        running = false;
      }
    },
  };
}
