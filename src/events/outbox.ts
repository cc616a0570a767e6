/**
 * The transactional outbox: the events a change emits (src/changes/unit-of-work.ts) and one delivery
 * row per matching active subscription are written in the change's own transaction. Either all of it
 * commits or none of it does, so a crash can never lose an event.
 */
import type { Change, EventLedger, UnitOfWork } from '../changes/unit-of-work.js';
import { type BulkColumn, bulkInsert } from '../db/bulk-insert.js';
import type { Db, Dialect, Executor } from '../db/database.js';
import type { NewDelivery } from '../db/schema.js';
import { ids } from '../ids.js';
import { type DomainEvent, webhookPayload } from './catalogue.js';
import { DELIVERIES_CHANNEL, EVENTS_CHANNEL } from './channels.js';
import { matchingSubscriptions } from './fan-out.js';
import { enterFanOut } from './fan-out-fence.js';
import { reservePositions } from './feed-sequence.js';

const INSERT_CHUNK = 500;
/** From this many events on, one bulk statement (db/bulk-insert.ts) writes them all. */
const BULK_FROM = 64;
/** The columns of an event row as recordEvents writes them, and seq on SQLite, where it is stamped here. */
const EVENT_COLUMNS: readonly BulkColumn[] = [
  { name: 'id', pgType: 'text' },
  { name: 'name', pgType: 'text' },
  { name: 'resource', pgType: 'text' },
  { name: 'identifier', pgType: 'text' },
  { name: 'payload', pgType: 'text' },
  { name: 'created_at', pgType: 'bigint' },
  { name: 'ean', pgType: 'text' },
];
const SEQ_COLUMN: BulkColumn = { name: 'seq', pgType: 'bigint' };

/** The PostgreSQL channels the outbox notifies on (channels.ts), exported beside the outbox too. */
export { DELIVERIES_CHANNEL, EVENTS_CHANNEL };

/** Takes an event built by a generated emitter (emitters.ts), e.g. `emit(events.listPublished(identifier))`. */
export type Emit = (event: DomainEvent) => void;

/** A change that may emit domain events (src/changes/unit-of-work.ts runs it). */
export type EventfulChange = Change<DomainEvent>;
/** The unit of work of the services whose changes emit events. */
export type EventfulWork = UnitOfWork<DomainEvent>;

/**
 * Where a unit of work's events go: written with one delivery row per matching active subscription
 * in the change's transaction, so a crash can never lose an event; after the commit this process's
 * workers are woken for a prompt first attempt.
 */
export class Outbox implements EventLedger<DomainEvent> {
  constructor(
    private readonly db: Db,
    /** Called after every commit that created deliveries: wakes this process's delivery workers. */
    private readonly onDeliveriesCreated: () => void = () => undefined,
    /**
     * A test hook (SHELFMARK_TEST_HOLD_EVENTS_MS): a transaction that recorded events waits a random
     * 0 to this many ms before it commits, after its events drew their positions, so transactions
     * commit in another order than they drew positions in (the feed's ordering tests), or an import
     * runs slowly enough for a kill to land mid-way. Undefined (always, outside tests): no wait.
     */
    private readonly testHoldMs: number | undefined = undefined,
  ) {}

  private readonly eventListeners: (() => void)[] = [];

  /** Called after every commit that recorded events (the event feed wakes its waiters on this node). */
  onEventsCommitted(listener: () => void): void {
    this.eventListeners.push(listener);
  }

  write(trx: Executor, now: number, events: readonly DomainEvent[]): Promise<number> {
    return recordEvents(trx, this.db.dialect, now, events);
  }

  async beforeCommit(trx: Executor, written: { deliveries: number }): Promise<void> {
    // Delivered to every listening node when (and only if) this transaction commits; this node's
    // listeners skip it (its origin), as the listeners below are called after the commit.
    await this.db.dialect.notify(
      trx,
      written.deliveries > 0 ? DELIVERIES_CHANNEL : EVENTS_CHANNEL,
      this.db.origin ?? '',
    );
    const hold = this.testHoldMs;
    if (hold !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.random() * hold));
  }

  afterCommit(written: { deliveries: number }): void {
    if (written.deliveries > 0) this.onDeliveriesCreated();
    for (const listener of this.eventListeners) listener();
  }
}

/**
 * Writes the events and their deliveries with the given executor (which must be a transaction): the
 * events in chunks, one look-up of the matching active subscriptions of all of them (filters joined
 * in SQL, see fan-out.ts), the deliveries in chunks.
 */
export async function recordEvents(
  trx: Executor,
  dialect: Dialect,
  now: number,
  events: readonly DomainEvent[],
): Promise<number> {
  if (events.length === 0) return 0;
  const first = await reservePositions(trx, dialect, events.length);
  const rows = events.map((event, index) => ({
    id: ids.event(),
    name: event.name,
    resource: event.resource,
    identifier: event.identifier,
    payload: webhookPayload(event),
    created_at: now,
    ean: event.ean ?? null,
    ...(first === undefined ? {} : { seq: first + index }),
  }));
  if (rows.length >= BULK_FROM) {
    const columns = first === undefined ? EVENT_COLUMNS : [...EVENT_COLUMNS, SEQ_COLUMN];
    await bulkInsert(
      trx,
      dialect,
      'events',
      columns,
      rows.map((row) => columns.map((column) => (row as Record<string, unknown>)[column.name] ?? null)),
    );
  } else
    for (let i = 0; i < rows.length; i += INSERT_CHUNK)
      await trx
        .insertInto('events')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
  await enterFanOut(trx, dialect);
  const subscriptionsOf = await matchingSubscriptions(trx, events, dialect);
  const deliveries = rows.flatMap((row, index) =>
    subscriptionsOf(events[index] as DomainEvent).map((subscription) => newDelivery(row.id, subscription, now)),
  );
  for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('deliveries')
      .values(deliveries.slice(i, i + INSERT_CHUNK))
      .execute();
  }
  return deliveries.length;
}

/** A delivery due at once, not yet attempted. */
export function newDelivery(
  eventId: string,
  subscriptionId: string,
  now: number,
  id: string = ids.delivery(),
): NewDelivery {
  return {
    id,
    event_id: eventId,
    subscription_id: subscriptionId,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    last_status_code: null,
    last_error_class: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/**
 * Writes one event delivered only to the given subscriptions, not to every subscriber of its name:
 * subscription.failing and .disabled concern one client, so the caller picks that client's audience.
 */
export async function recordEventFor(
  trx: Executor,
  dialect: Dialect,
  now: number,
  event: DomainEvent,
  subscriptionIds: readonly string[],
): Promise<number> {
  const id = ids.event();
  const payload = webhookPayload(event);
  const { name, resource, identifier } = event;
  const seq = await reservePositions(trx, dialect, 1);
  await trx
    .insertInto('events')
    .values({ id, name, resource, identifier, payload, created_at: now, ...(seq === undefined ? {} : { seq }) })
    .execute();
  if (subscriptionIds.length === 0) return 0;
  await trx
    .insertInto('deliveries')
    .values(subscriptionIds.map((subscriptionId) => newDelivery(id, subscriptionId, now)))
    .execute();
  return subscriptionIds.length;
}
