/**
 * Webhook subscriptions: registration (URL and address policy), the owner's views, and the status
 * changes the delivery worker and the operator make. No HTTP here; routes shape the answers.
 */
import type { Changes, JsonValue } from '../audit/canonical.js';
import type { Initiator } from '../audit/initiator.js';
import { changesBetween } from '../audit/recorder.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import { type Clock, isoTime } from '../clock.js';
import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import type { SubscriptionRow } from '../db/schema.js';
import { type LookupFn, resolveAndCheck, SsrfBlockedError, UnresolvableHostError } from '../delivery/ssrf.js';
import { ACCEPTED_EVENT_SPELLINGS, canonicalEvent } from '../events/catalogue.js';
import { ids } from '../ids.js';
import { clientRevoked, notFound, Problem } from '../problems/catalogue.js';
import { type Page, toPage } from '../vocabulary/paging.js';
import { checkFilter } from './filter.js';
import type { SubscriptionFilter } from './filter-schema.js';
import { parseNotificationUrl } from './notification-url.js';
import type { AdminSubscriptionView, SubscriptionView, SubscriptionWithHealth } from './schemas.js';
import { type AdminFilter, type Cursor, SubscriptionStore } from './store.js';
import { toAdminView, toView, toViewWithHealth } from './views.js';

export interface PageRequest {
  limit: number;
  startingAfter?: string | undefined;
}

/** The repeat of a registration must ask for the same filter; another filter is a new subscription's job. */
function sameFilter(existing: SubscriptionRow, asked: SubscriptionRow): SubscriptionRow {
  if (existing.filter === asked.filter) return existing;
  throw new Problem(
    'conflict',
    `this notificationUrl is already subscribed to ${existing.event} with ${existing.filter === null ? 'no filter' : `filter ${existing.filter}`}; delete that subscription to change its filter, or use another URL`,
    { subscription: existing.id },
  );
}

/** What the audit log keeps of a subscription (its URL, event, filter and status; no payload). */
function auditFields(before: SubscriptionRow | null, after: SubscriptionRow | null): Changes {
  const fields = (row: SubscriptionRow | null) =>
    row === null
      ? null
      : {
          client: row.client_ref,
          notificationUrl: row.notification_url,
          event: row.event,
          filter: row.filter === null ? null : (JSON.parse(row.filter) as JsonValue),
          status: row.status,
        };
  return changesBetween(fields(before), fields(after));
}

/** What a registration asks for, and what it answers (created: false for an idempotent repeat). */
type Registration = { notificationUrl: string; event: string; filter?: SubscriptionFilter | undefined };
type Registered<V> = { subscription: V; created: boolean };

export class SubscriptionService {
  private readonly store: SubscriptionStore;

  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'webhookAllowPrivate' | 'maxSubscriptionsPerClient'>,
    /** Every change of a subscription runs in one, its audit record with it. */
    private readonly work: UnitOfWork,
    /** DNS for the address policy; tests inject one so they never need the network. */
    private readonly lookup?: LookupFn,
  ) {
    this.store = new SubscriptionStore(db);
  }

  /**
   * Registers a subscription. Creating the same (URL, canonical event) twice is idempotent: the existing
   * subscription comes back with `created: false` (the route answers 200 instead of 201), so a client that
   * retries after a lost response neither fails nor gets a second subscription and duplicate webhooks.
   */
  async create(clientRef: string, input: Registration, by: Initiator): Promise<Registered<SubscriptionView>> {
    const url = parseNotificationUrl(input.notificationUrl);
    const event = canonicalEvent(input.event);
    if (event === undefined) {
      const detail = `event "${input.event.slice(0, 100)}" is not known; use one of ${ACCEPTED_EVENT_SPELLINGS.join(', ')}`;
      throw new Problem('validation-failed', detail, {
        acceptedEvents: ACCEPTED_EVENT_SPELLINGS,
        errors: [{ location: 'body', path: '/event', message: detail }],
      });
    }
    const filter = await checkFilter(this.db, event, input.filter);
    await this.vetHost(url.hostname);
    const now = this.clock.now();
    const row: SubscriptionRow = {
      id: ids.subscription(),
      client_ref: clientRef,
      notification_url: url.href,
      event,
      event_as_given: input.event,
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      last_success_at: null,
      consecutive_failures: 0,
      filter: filter.json,
      filter_list: filter.list,
      created_at: now,
      updated_at: now,
    };
    // The cap applies to new subscriptions only: an idempotent repeat of an existing one still answers 200.
    const same = await this.store.findSame(row);
    if (same !== undefined) return { subscription: toView(sameFilter(same, row)), created: false };
    const max = this.config.maxSubscriptionsPerClient;
    if ((await this.store.countForClient(clientRef)) >= max) {
      throw new Problem(
        'subscription-limit',
        `a client may hold at most ${max} subscriptions; delete one before creating another`,
        { limit: max },
      );
    }
    const stored = await this.work.run(by, async ({ trx, record }) => {
      const kept = await new SubscriptionStore(trx).insertOrGet(row, filter.eans);
      if (kept.id === row.id) record('subscription.created', row.id, auditFields(null, row));
      return kept;
    });
    return { subscription: toView(sameFilter(stored, row)), created: stored.id === row.id };
  }

  list(clientRef: string, page: PageRequest): Promise<Page<SubscriptionView>> {
    return this.page(clientRef, page, toView);
  }

  /** The partner portal's list: each subscription with the failed attempts in a row its banner counts. */
  listWithHealth(clientRef: string, page: PageRequest): Promise<Page<SubscriptionWithHealth>> {
    return this.page(clientRef, page, toViewWithHealth);
  }

  async get(clientRef: string, id: string): Promise<SubscriptionView> {
    return toView(await this.own(clientRef, id));
  }

  async delete(clientRef: string, id: string, by: Initiator): Promise<void> {
    const before = await this.own(clientRef, id);
    await this.work.run(by, async ({ trx, record }) => {
      if (!(await new SubscriptionStore(trx).deleteForClient(clientRef, id))) throw notFound(`subscription ${id}`);
      record('subscription.deleted', id, auditFields(before, null));
    });
  }

  /** The owner turns a disabled subscription back on (after fixing the receiver). */
  async reenableOwn(clientRef: string, id: string, by: Initiator): Promise<SubscriptionView> {
    await this.own(clientRef, id);
    await this.reenable(id, by);
    return toView(await this.own(clientRef, id));
  }

  /** Active again, with the failure history cleared. Throws not-found for an unknown id. */
  async reenable(id: string, by: Initiator): Promise<void> {
    const before = await this.store.find(id);
    if (before === undefined) throw notFound(`subscription ${id}`);
    if (before.status === 'revoked') throw clientRevoked(`subscription ${id}`);
    await this.work.run(by, async ({ trx, now, record }) => {
      // Not enabled: its client was revoked since it was read (the row is never deleted under us here).
      if (!(await new SubscriptionStore(trx).enable(id, now))) throw clientRevoked(`subscription ${id}`);
      record('subscription.reenabled', id, {
        status: { before: before.status, after: 'active' },
        failingSince: { before: before.failing_since === null ? null : isoTime(before.failing_since), after: null },
      });
    });
  }

  /**
   * Stops deliveries to a subscription (receiver answered 410 Gone, or failed for too long). Pass the
   * transaction when called inside one. Returns false when it was already disabled or does not exist.
   */
  disable(id: string, reason: string, executor: Executor = this.db): Promise<boolean> {
    return new SubscriptionStore(executor).disable(id, reason, this.clock.now());
  }

  /** The operator registers for a client (cli_… or smc_…) under the client's own rules; never for a revoked one. */
  async adminCreate(client: string, input: Registration, by: Initiator): Promise<Registered<AdminSubscriptionView>> {
    const owner = await this.store.findClient(client);
    if (owner === undefined) throw notFound(`client ${client.slice(0, 64)}`);
    if (owner.revoked_at !== null)
      throw new Problem('conflict', `client ${owner.name} is revoked; it cannot receive webhooks`);
    const { subscription, created } = await this.create(owner.id, input, by);
    return { subscription: await this.adminGet(subscription.id), created };
  }

  async adminGet(id: string): Promise<AdminSubscriptionView> {
    const row = await this.store.findWithClient(id);
    if (row === undefined) throw notFound(`subscription ${id}`);
    return toAdminView(row);
  }

  async adminList(filter: AdminFilter, page: PageRequest): Promise<Page<AdminSubscriptionView>> {
    const after = page.startingAfter === undefined ? undefined : await this.cursor(page.startingAfter);
    const rows = await this.store.pageAll(filter, page.limit, after);
    return toPage(rows, page.limit, toAdminView);
  }

  /** Another client's subscription is reported exactly like a missing one, so ids cannot be probed. */
  private async own(clientRef: string, id: string): Promise<SubscriptionRow> {
    const row = await this.store.find(id);
    if (row === undefined || row.client_ref !== clientRef) throw notFound(`subscription ${id}`);
    return row;
  }

  private async page<View>(clientRef: string, page: PageRequest, view: (row: SubscriptionRow) => View) {
    const after = page.startingAfter === undefined ? undefined : await this.cursor(page.startingAfter, clientRef);
    return toPage(await this.store.pageForClient(clientRef, page.limit, after), page.limit, view);
  }

  private async cursor(id: string, clientRef?: string): Promise<Cursor> {
    const row = await this.store.find(id);
    if (row === undefined || (clientRef !== undefined && row.client_ref !== clientRef)) {
      const detail = `starting_after "${id.slice(0, 64)}" is not a subscription id from this list`;
      throw new Problem('validation-failed', detail, {
        errors: [{ location: 'querystring', path: '/starting_after', message: detail }],
      });
    }
    return { created_at: row.created_at, id: row.id };
  }

  private async vetHost(hostname: string): Promise<void> {
    try {
      await resolveAndCheck(hostname, { allowPrivate: this.config.webhookAllowPrivate }, this.lookup);
    } catch (error) {
      if (error instanceof SsrfBlockedError) {
        throw new Problem('blocked-address', `notificationUrl must reach a public address: ${error.reason}`, {
          reason: error.reason,
        });
      }
      if (error instanceof UnresolvableHostError) {
        throw new Problem('unresolvable-host', `notificationUrl host ${hostname} does not resolve to any address`);
      }
      throw error;
    }
  }
}
