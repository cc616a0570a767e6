/**
 * The one way a change is written: `run` opens the transaction, hands the work its executor, its
 * event emitter and its audit recorder, and commits the change, its events (with their deliveries)
 * and its audit records together, or none of them.
 *
 * The audit records go last, just before the commit: a record takes the chain's head row until the
 * commit and every audited write of every node waits for that row, so the less the transaction does
 * after taking it the less the others wait (docs/decisions/0005-audit-chain.md). A record is checked
 * when it is made (no secret in it, an action the acting route declares), so a bad one fails its
 * change before anything is written.
 */

import type { Changes } from '../audit/canonical.js';
import type { AuditAction } from '../audit/catalogue.js';
import type { Initiator } from '../audit/initiator.js';
import { appendRecord, checkRecord } from '../audit/recorder.js';
import type { Clock } from '../clock.js';
import type { Db, Dialect, Executor } from '../db/database.js';

/** What the work of one change is given. `E` is the events it may emit (none for `never`). */
export interface Change<E = never> {
  readonly trx: Executor;
  /** The instant of the change: its rows' times and its audit records' `at`. */
  readonly now: number;
  /** An event of this change, written with its deliveries before the commit. */
  emit(event: E): void;
  /** Writes the events emitted so far now (a bulk import keeps one batch in memory, not all). */
  flush(): Promise<void>;
  /** The audit record of this change, appended just before the commit. */
  record(action: AuditAction, targetId: string, changes?: Changes): void;
}

export interface UnitOfWork<E = never> {
  /** The dialect of the database the transactions run on (whether a read-then-write locks its row). */
  readonly dialect: Dialect;
  run<T>(by: Initiator, work: (change: Change<E>) => Promise<T>): Promise<T>;
}

/**
 * Where a unit's events go: the outbox (src/events/outbox.ts) writes them with their deliveries,
 * tells other nodes before the commit and this node's listeners after it.
 */
export interface EventLedger<E> {
  /** Writes the events and their deliveries; answers how many deliveries were created. */
  write(trx: Executor, now: number, events: readonly E[]): Promise<number>;
  /** The last step inside a transaction that wrote events, before its audit records. */
  beforeCommit(trx: Executor, written: { events: number; deliveries: number }): Promise<void>;
  /** After the commit of a transaction that wrote events. */
  afterCommit(written: { events: number; deliveries: number }): void;
}

/** A ledger for units that emit nothing (tools and tests that write no events). */
export const NO_EVENTS: EventLedger<never> = {
  write: async () => 0,
  beforeCommit: async () => undefined,
  afterCommit: () => undefined,
};

export function unitOfWork<E>(db: Db, clock: Clock, ledger: EventLedger<E>): UnitOfWork<E> {
  return {
    dialect: db.dialect,
    async run<T>(by: Initiator, work: (change: Change<E>) => Promise<T>): Promise<T> {
      const written = { events: 0, deliveries: 0 };
      const result = await db.kysely.transaction().execute(async (trx) => {
        const now = clock.now();
        const events: E[] = [];
        const records: (() => Promise<unknown>)[] = [];
        const flush = async (): Promise<void> => {
          const batch = events.splice(0);
          if (batch.length === 0) return;
          written.events += batch.length;
          written.deliveries += await ledger.write(trx, now, batch);
        };
        const change: Change<E> = {
          trx,
          now,
          emit: (event) => {
            events.push(event);
          },
          flush,
          record: (action, targetId, changes = {}) => {
            checkRecord(by, action, changes);
            records.push(() => appendRecord(trx, now, by, action, targetId, changes));
          },
        };
        const value = await work(change);
        await flush();
        if (written.events > 0) await ledger.beforeCommit(trx, written);
        for (const append of records) await append();
        return value;
      });
      if (written.events > 0) ledger.afterCommit(written);
      return result;
    },
  };
}
