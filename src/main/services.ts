/**
 * The service graph: stores and services wired together from the injected dependencies. Only the
 * composition roots (app.ts, server.ts and the CLI) see this whole graph; each route plugin, the
 * worker and the seeder receive just the members they use, so their dependencies read off their
 * signatures and every one of them shares the same rules. A worker-only process builds just the
 * worker's part of it (createWorkerServices).
 */

import { AuditStore } from '../audit/store.js';
import { ClientService, type EndClientDependents } from '../auth/client-service.js';
import { ClientStates } from '../auth/client-states.js';
import { ClientStore } from '../auth/client-store.js';
import { SecretHasher } from '../auth/secret-hash.js';
import { SigningKeys } from '../auth/signing-keys.js';
import { TokenEndpoint } from '../auth/token-endpoint.js';
import { TokenService } from '../auth/token-service.js';
import { unitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ChangeLogStore } from '../db/change-log.js';
import type { Db } from '../db/database.js';
import { getOrCreateSetting } from '../db/settings.js';
import { ManualAttempts } from '../delivery/manual.js';
import { DeliveryQueryStore } from '../delivery/query-store.js';
import type { WebhookSender } from '../delivery/sender.js';
import { DeliveryService } from '../delivery/service.js';
import { createDeliveryWorkers, type DeliveryWorkers } from '../delivery/setup.js';
import type { LookupFn } from '../delivery/ssrf.js';
import { createEventFeed } from '../events/feed-setup.js';
import { type EventfulWork, Outbox } from '../events/outbox.js';
import { type AdminToken, bootstrapAdminToken } from '../identity/admin-token.js';
import { WebSessionStore } from '../identity/session-store.js';
import { WebSessions } from '../identity/sessions.js';
import { createOperators } from '../identity/setup.js';
import { secrets } from '../ids.js';
import { AuthFailureLimit } from '../limits/auth-failures.js';
import { RequestRateLimit } from '../limits/request-limit.js';
import { ListService } from '../lml/list-service.js';
import { ListStore } from '../lml/list-store.js';
import { SchoolService } from '../lml/school-service.js';
import { SchoolStore } from '../lml/school-store.js';
import { StructureService } from '../lml/structure.js';
import { Metrics } from '../observability/metrics.js';
import { PricedListService } from '../offers/priced-list.js';
import { OfferReadModel } from '../offers/read-model.js';
import { installReadModelGauges } from '../offers/read-model-gauges.js';
import { OfferService } from '../offers/service.js';
import { OfferStore } from '../offers/store.js';
import { installQueueGauges } from '../overview/queue-gauges.js';
import { OverviewService } from '../overview/service.js';
import { installWorkerGauges } from '../overview/worker-gauges.js';
import { PortalService } from '../portal/service.js';
import { PortalSubjects } from '../portal/subjects.js';
import { retentionSettings } from '../retention/policy.js';
import { createRetention, type RetentionServices } from '../retention/setup.js';
import { SubscriptionRecovery } from '../subscriptions/recovery.js';
import { SubscriptionReplay } from '../subscriptions/replay.js';
import { endClientWebhooks } from '../subscriptions/revocation.js';
import { SubscriptionService } from '../subscriptions/service.js';
import { SubscriptionStore } from '../subscriptions/store.js';
import type { RouteServices } from './routes.js';

export interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  /** Process-wide metrics; tests leave it out and get a private registry. */
  metrics?: Metrics;
  /** DNS lookup for the SSRF address policy; tests inject one so no test needs the network. */
  dnsLookup?: LookupFn;
  /** Outgoing webhook HTTP; the undici sender with the SSRF-safe connector by default. */
  sender?: WebhookSender;
}

/**
 * What a worker-only process (`--role worker`) runs, and all it builds: the delivery workers and
 * retention's pruner over the database, with their metrics. The full graph below contains it.
 */
export interface WorkerServices {
  metrics: Metrics;
  /** A delivery worker that is not started (tests drive it with runOnce()). */
  createDeliveryWorker: DeliveryWorkers['createDeliveryWorker'];
  /** Starts the webhook delivery worker in this process; the outbox wakes it on new deliveries. */
  startWorker: DeliveryWorkers['startWorker'];
  /** Pruning now or as a dry run (CLI `prune`), the record of the last prune. */
  retention: RetentionServices['retention'];
  /** The storage view (GET /api/admin/v1/storage). */
  storage: RetentionServices['storage'];
  /** Starts the periodic pruner in this process (the worker role, beside the delivery worker). */
  startPruner: RetentionServices['startPruner'];
}

/** The worker's graph: what `--role worker` builds, and what the full graph shares with it. */
export function createWorkerServices(deps: Deps): WorkerServices & { wakeWorkers: DeliveryWorkers['wake'] } {
  const { config, db, clock } = deps;
  const metrics = deps.metrics ?? new Metrics();
  const workers = createDeliveryWorkers({
    config,
    db,
    clock,
    metrics,
    sender: deps.sender,
    dnsLookup: deps.dnsLookup,
  });
  return {
    metrics,
    createDeliveryWorker: workers.createDeliveryWorker,
    startWorker: workers.startWorker,
    wakeWorkers: workers.wake,
    ...createRetention({ config, db, clock, metrics }),
  };
}

/**
 * The whole graph: what the route table hands its plugins (RouteServices, routes.ts), what a worker
 * runs, the admin token (its guard, the token this start generated, its reset) and the outbox.
 */
export interface Services extends AdminToken, WorkerServices, RouteServices {
  outbox: Outbox;
  /** The one way a change is written: its transaction, its events and its audit records (src/changes/). */
  work: EventfulWork;
}

export async function createServices(deps: Deps): Promise<Services> {
  const { config, db, clock } = deps;
  const kysely = db.kysely;
  const pepper = config.secretPepper ?? (await getOrCreateSetting(kysely, 'secret_pepper', secrets.pepper));
  const hasher = new SecretHasher(pepper);

  const { wakeWorkers, ...worker } = createWorkerServices(deps);
  // A commit that created deliveries wakes this process's workers, so first attempts start at once.
  const outbox = new Outbox(db, () => wakeWorkers('new'), config.testHoldEventsMs);
  const work = unitOfWork(db, clock, outbox);
  const adminToken = await bootstrapAdminToken({ config, db: kysely, hasher, clock, work });

  const clientStates = new ClientStates();
  const audit = new AuditStore(kysely);
  // A revoked client keeps nothing that acts for it: webhooks and portal access end in the revoke's transaction.
  const endClientDependents: EndClientDependents = async (trx, clientRef, now) => ({
    ...(await endClientWebhooks(trx, clientRef, now)),
    ...(await new WebSessionStore(trx).deleteClientAccess(clientRef)),
  });
  const clients = new ClientService(
    new ClientStore(kysely),
    hasher,
    clock,
    config,
    clientStates,
    work,
    endClientDependents,
  );
  const signingKeys = new SigningKeys(kysely, clock, config.tokenTtlSeconds * 1000);
  const tokens = new TokenService(signingKeys, clients, clock, config, clientStates);

  const metrics = worker.metrics;
  installQueueGauges(metrics, db, clock);
  installWorkerGauges(metrics, db, clock, config);
  const deliveryLog = new DeliveryQueryStore(db, (executor) => new SubscriptionStore(executor));
  // Test pings and "Retry now" are sent by the process asked, so the answer is the attempt's outcome.
  const manualAttempts = new ManualAttempts({
    db,
    work,
    clock,
    config,
    metrics,
    sender: deps.sender,
    wake: () => wakeWorkers('new'),
    senderOptions: {
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivate,
      lookup: deps.dnsLookup,
    },
  });
  const deliveries = new DeliveryService(deliveryLog, wakeWorkers, manualAttempts, work);
  const offerStore = new OfferStore(kysely);
  const offers = new OfferService(
    offerStore,
    clock,
    config,
    new OfferReadModel(offerStore, new ChangeLogStore(kysely, 'offer_changes'), config, db.dialect),
    work,
  );
  installReadModelGauges(metrics, offers.readModel);
  const subscriptions = new SubscriptionService(kysely, clock, config, work, deps.dnsLookup);
  const schools = new SchoolService(db, work, clock);
  const lists = new ListService(db, work, clock);
  const structure = new StructureService(db);

  const rateLimit = new RequestRateLimit(config, clock);
  const authFailures = new AuthFailureLimit(config, clock);
  const webSessions = new WebSessions(new WebSessionStore(kysely), clients, clock, config, work);
  const overview = new OverviewService(db, clock, config);
  const recovery = new SubscriptionRecovery(subscriptions, deliveries, clock, config.webhookRetryScheduleSeconds);
  const subjects = new PortalSubjects(lists, { lists: new ListStore(kysely), schools: new SchoolStore(kysely) });
  const portal = new PortalService(clients, subscriptions, deliveries, recovery, subjects);

  return {
    audit,
    clients,
    tokens,
    tokenEndpoint: new TokenEndpoint(clients, tokens, authFailures),
    signingKeys,
    rateLimit,
    authFailures,
    outbox,
    work,
    eventFeed: createEventFeed({ db, clock, config, eventDays: retentionSettings(config).eventDays, outbox }),
    replays: new SubscriptionReplay(db, () => wakeWorkers('new'), work),
    clock,
    offers,
    pricedLists: new PricedListService(new ListStore(kysely), offers.readModel),
    subscriptions,
    recovery,
    schools,
    lists,
    structure,
    deliveries,
    webSessions,
    portal,
    overview,
    operators: createOperators({ config, db, clock, webSessions, work, hasher }),
    ...worker,
    ...adminToken,
  };
}
