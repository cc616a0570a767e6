/**
 * What a signed-in partner may do, always scoped to its own client. Every operation delegates to the
 * service the public and admin APIs use (client secrets, subscriptions with the SSRF rule, the
 * delivery log), so no rule exists twice; this file only adds the partner's scoping.
 */
import type { Initiator } from '../audit/initiator.js';
import type { ClientView } from '../auth/client-schemas.js';
import type { ClientService } from '../auth/client-service.js';
import type { AttemptView, DeliveryView } from '../delivery/schemas.js';
import type { DeliveryQuery, DeliveryService } from '../delivery/service.js';
import type { SubscriptionFilter } from '../subscriptions/filter-schema.js';
import type { Recovered, SubscriptionRecovery } from '../subscriptions/recovery.js';
import type { SubscriptionView, SubscriptionWithHealth } from '../subscriptions/schemas.js';
import type { SubscriptionService } from '../subscriptions/service.js';
import type { Page } from '../vocabulary/paging.js';
import type { ListChoice, PortalSubjects, SubjectName } from './subjects.js';

/** A delivery with its attempts (each with the request it sent), and what it was about by name (null: a test ping, or gone). */
export interface PortalDelivery extends DeliveryView {
  attempts: AttemptView[];
  subject: SubjectName | null;
}

export class PortalService {
  constructor(
    private readonly clients: ClientService,
    private readonly subscriptions: SubscriptionService,
    private readonly deliveries: DeliveryService,
    private readonly recovery: SubscriptionRecovery,
    private readonly subjects: PortalSubjects,
  ) {}

  me(clientRef: string): Promise<ClientView> {
    return this.clients.get(clientRef);
  }

  /** Through the client service: the old secret and every token minted with it are refused at once. */
  resetSecret(clientRef: string, by: Initiator): Promise<{ clientSecret: string }> {
    return this.clients.resetSecret(clientRef, by);
  }

  rotateWebhookSecret(
    clientRef: string,
    by: Initiator,
  ): Promise<{ webhookSecret: string; previousSecretValidUntil: string }> {
    return this.clients.rotateWebhookSecret(clientRef, by);
  }

  /** The client's subscriptions, each with the failed attempts in a row its banner counts. */
  listSubscriptions(clientRef: string, limit: number, startingAfter?: string): Promise<Page<SubscriptionWithHealth>> {
    return this.subscriptions.listWithHealth(clientRef, { limit, startingAfter });
  }

  createSubscription(
    clientRef: string,
    input: { notificationUrl: string; event: string; filter?: SubscriptionFilter },
    by: Initiator,
  ) {
    return this.subscriptions.create(clientRef, input, by);
  }

  /** The lists a subscription filter may follow, for the form's picker. */
  listChoices(): Promise<{ data: ListChoice[] }> {
    return this.subjects.listChoices();
  }

  deleteSubscription(clientRef: string, id: string, by: Initiator): Promise<void> {
    return this.subscriptions.delete(clientRef, id, by);
  }

  enableSubscription(clientRef: string, id: string, by: Initiator): Promise<SubscriptionView> {
    return this.subscriptions.reenableOwn(clientRef, id, by);
  }

  ping(clientRef: string, subscriptionId: string, by: Initiator): Promise<{ deliveryId: string }> {
    return this.deliveries.ping(subscriptionId, clientRef, by);
  }

  recover(clientRef: string, subscriptionId: string, since: string, by: Initiator): Promise<{ requeued: number }> {
    return this.deliveries.recoverOwn(subscriptionId, clientRef, since, by);
  }

  /** The banner's one click: re-enable and recover what failed in the current failing period. */
  recoverFailed(clientRef: string, subscriptionId: string, by: Initiator): Promise<Recovered> {
    return this.recovery.recoverOwn(clientRef, subscriptionId, by);
  }

  /** A page of the log, each delivery with what it was about by name (as in the console's log). */
  async listDeliveries(
    clientRef: string,
    query: DeliveryQuery,
  ): Promise<Page<DeliveryView & { subject: SubjectName | null }>> {
    // One subscription's log is checked to be the client's own (404 otherwise), as the client API's is.
    const page =
      query.subscriptionId === undefined
        ? await this.deliveries.list(query, clientRef)
        : await this.deliveries.listForSubscription(query.subscriptionId, clientRef, query);
    return { ...page, data: await this.subjects.nameAll(page.data) };
  }

  async delivery(clientRef: string, id: string): Promise<PortalDelivery> {
    const delivery = await this.deliveries.getOwn(id, clientRef);
    return { ...delivery, subject: await this.subjects.name(delivery.payload) };
  }

  retry(clientRef: string, id: string, by: Initiator): Promise<DeliveryView> {
    return this.deliveries.retryOwn(id, clientRef, by);
  }

  /** A delivery waiting for its next scheduled attempt is attempted now (the portal's "Retry now"). */
  sendNow(clientRef: string, id: string, by: Initiator): Promise<DeliveryView> {
    return this.deliveries.sendNowOwn(id, clientRef, by);
  }
}
