/**
 * The service graph: stores and services wired together from the injected dependencies. Only the
 * composition roots (app.ts, server.ts and the CLI) see this whole graph; each route plugin, the
 * worker and the seeder receive just the members they use, so their dependencies read off their
 * signatures and every one of them shares the same rules.
 */
import { ChangeLogStore } from './db/change-log.js';
import { AdminAuth } from './admin/guard.js';
import { ClientService } from './auth/client-service.js';
import { ClientStore } from './auth/client-store.js';
import { SecretHasher } from './auth/secret-hash.js';
import { SigningKeys } from './auth/signing-keys.js';
import { TokenEndpoint } from './auth/token-endpoint.js';
import { TokenService } from './auth/token-service.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { getOrCreateSetting, getSetting, putSetting } from './db/settings.js';
import { Outbox } from './events/outbox.js';
import { ListService } from './lml/list-service.js';
import { SchoolService } from './lml/school-service.js';
import { StructureService } from './lml/structure.js';
import { secrets } from './ids.js';
import { Metrics } from './ops/metrics.js';
import { installQueueGauges } from './delivery/queue-gauges.js';
import { OfferService } from './offers/service.js';
import { OfferReadModel } from './offers/read-model.js';
import { OfferStore } from './offers/store.js';
import { PricedListService } from './offers/priced-list.js';
import { ListStore } from './lml/list-store.js';
import type { LookupFn } from './delivery/ssrf.js';
import type { WebhookSender } from './delivery/sender.js';
import type { DeliveryService } from './delivery/service.js';
import { createDeliveryServices, type DeliveryServices } from './delivery/setup.js';
import { SubscriptionService } from './subscriptions/service.js';
import { AuthFailureLimit } from './limits/auth-failures.js';
import { RequestRateLimit } from './limits/request-limit.js';
import { WebSessions } from './web-sessions/sessions.js';
import { WebSessionStore } from './web-sessions/store.js';
import { PortalService } from './portal/service.js';
import { SubscriptionRecovery } from './subscriptions/recovery.js';
import { OverviewService } from './ops/overview.js';
import { createRetention, type RetentionServices } from './retention/setup.js';

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

export interface Services {
  clients: ClientService;
  tokens: TokenService;
  /** The token endpoint's pipeline (parse → authenticate → scopes → issue). */
  tokenEndpoint: TokenEndpoint;
  signingKeys: SigningKeys;
  adminAuth: AdminAuth;
  hasher: SecretHasher;
  metrics: Metrics;
  /** Per-client request rate of the bearer-guarded API (per node). */
  rateLimit: RequestRateLimit;
  /** Brute-force limit of the token endpoint (per node). */
  authFailures: AuthFailureLimit;
  outbox: Outbox;
  offers: OfferService;
  /** A whole book list priced from the offers read model. */
  pricedLists: PricedListService;
  subscriptions: SubscriptionService;
  /** "Re-enable and recover what failed" (portal banner, console health). */
  recovery: SubscriptionRecovery;
  schools: SchoolService;
  lists: ListService;
  structure: StructureService;
  deliveries: DeliveryService;
  /** Partner-portal links and browser sessions (portal and operator console). */
  webSessions: WebSessions;
  portal: PortalService;
  overview: OverviewService;
  /** A delivery worker that is not started (tests drive it with runOnce()). */
  createDeliveryWorker: DeliveryServices['createDeliveryWorker'];
  /** Starts the webhook delivery worker in this process; the outbox wakes it on new deliveries. */
  startWorker: DeliveryServices['startWorker'];
  /** Pruning now or as a dry run (CLI `prune`), the record of the last prune. */
  retention: RetentionServices['retention'];
  /** The storage view (GET /api/admin/v1/storage). */
  storage: RetentionServices['storage'];
  /** Starts the periodic pruner in this process (the worker role, beside the delivery worker). */
  startPruner: RetentionServices['startPruner'];
  /** Set only when this start generated the admin token (first start without ADMIN_TOKEN): print it once. */
  generatedAdminToken: string | undefined;
  /** Replaces the stored admin token (CLI `admin-token --reset`) and returns the new one. */
  resetAdminToken(): Promise<string>;
}

const ADMIN_TOKEN_SETTING = 'admin_token_hash';

export async function createServices(deps: Deps): Promise<Services> {
  const { config, db, clock } = deps;
  const kysely = db.kysely;
  const pepper = config.secretPepper ?? (await getOrCreateSetting(kysely, 'secret_pepper', secrets.pepper));
  const hasher = new SecretHasher(pepper);

  let generatedAdminToken: string | undefined;
  let adminTokenHash: string;
  if (config.adminToken !== undefined) {
    adminTokenHash = hasher.hash(config.adminToken);
  } else {
    const stored = await getSetting(kysely, ADMIN_TOKEN_SETTING);
    if (stored !== undefined) {
      adminTokenHash = stored;
    } else {
      const candidate = secrets.adminToken();
      adminTokenHash = await getOrCreateSetting(kysely, ADMIN_TOKEN_SETTING, () => hasher.hash(candidate));
      // Another node may have won the race; only the winner's token is valid and printed.
      if (adminTokenHash === hasher.hash(candidate)) generatedAdminToken = candidate;
    }
  }

  const clients = new ClientService(new ClientStore(kysely), hasher, clock, config);
  const signingKeys = new SigningKeys(kysely, clock, config.tokenTtlSeconds * 1000);
  const tokens = new TokenService(signingKeys, clients, clock, config);
  // A generated token lives in the database; re-read it on a miss so a reset by the CLI or another node applies here too.
  const adminAuth =
    config.adminToken === undefined
      ? new AdminAuth(
          hasher,
          adminTokenHash,
          () => getSetting(kysely, ADMIN_TOKEN_SETTING),
          () => clock.now(),
        )
      : new AdminAuth(hasher, adminTokenHash);

  const metrics = deps.metrics ?? new Metrics();
  installQueueGauges(metrics, db, clock);
  const outbox = new Outbox(db, clock);
  const offerStore = new OfferStore(kysely);
  const offers = new OfferService(
    offerStore,
    clock,
    config,
    new OfferReadModel(offerStore, new ChangeLogStore(kysely, 'offer_changes'), config, db.engine),
    outbox,
  );
  const subscriptions = new SubscriptionService(kysely, clock, config, deps.dnsLookup);
  const schools = new SchoolService(db, outbox, clock);
  const lists = new ListService(db, outbox, clock);
  const structure = new StructureService(db);
  const delivery = createDeliveryServices({
    config,
    db,
    clock,
    metrics,
    outbox,
    sender: deps.sender,
    dnsLookup: deps.dnsLookup,
  });

  const rateLimit = new RequestRateLimit(config, clock);
  const authFailures = new AuthFailureLimit(config, clock);
  const webSessions = new WebSessions(new WebSessionStore(kysely), clients, clock, config);
  const overview = new OverviewService(db, clock);
  const retention = createRetention({ config, db, clock, metrics });
  const recovery = new SubscriptionRecovery(
    subscriptions,
    delivery.deliveries,
    clock,
    config.webhookRetryScheduleSeconds,
  );
  const portal = new PortalService(clients, subscriptions, delivery.deliveries, recovery);

  const resetAdminToken = async (): Promise<string> => {
    const token = secrets.adminToken();
    const hash = hasher.hash(token);
    await putSetting(kysely, ADMIN_TOKEN_SETTING, hash);
    adminAuth.replaceTokenHash(hash);
    return token;
  };

  return {
    clients,
    tokens,
    tokenEndpoint: new TokenEndpoint(clients, tokens, authFailures),
    signingKeys,
    adminAuth,
    hasher,
    metrics,
    rateLimit,
    authFailures,
    outbox,
    offers,
    pricedLists: new PricedListService(new ListStore(kysely), offers.readModel),
    subscriptions,
    recovery,
    schools,
    lists,
    structure,
    ...delivery,
    webSessions,
    portal,
    overview,
    ...retention,
    generatedAdminToken,
    resetAdminToken,
  };
}
