/**
 * Table shapes as Kysely sees them. Times are epoch milliseconds (bigint in PostgreSQL, parsed to
 * number), booleans are 0/1 integers and structured values are JSON text, so one set of queries
 * runs unchanged on SQLite and PostgreSQL. Each table is an interface `<Name>Table`, here or in its
 * area's `*-tables.ts`; a column an insert may leave out (a default, NULL, a generated id) is
 * `Generated`, so a row read back has every column.
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AuditChainTable, AuditRecordsTable } from './audit-tables.js';
import type {
  DeliveriesTable,
  DeliveryAttemptsTable,
  DeliveryStatsTable,
  EventsTable,
  WorkerHeartbeatsTable,
} from './delivery-tables.js';
import type { ApiTokensTable, OidcSignInsTable, OperatorsTable } from './operator-tables.js';

export interface SettingsTable {
  key: string;
  value: string;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  /** After this instant the key no longer signs new tokens. */
  retire_at: number;
  /** After this instant the key no longer verifies (retire_at + longest token lifetime). */
  expires_at: number;
}

export interface ClientsTable {
  id: string;
  client_id: string;
  name: string;
  secret_hash: string;
  /** Incremented on every secret reset; tokens carry it so older tokens are refused exactly. */
  secret_version: number;
  /** Tokens issued before this instant are refused (bumped by a secret reset). */
  tokens_valid_after: number;
  /** Space-separated scopes. */
  scopes: string;
  webhook_secret: string;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface OffersTable {
  id: Generated<number>;
  /** Public and stable, 32 lower-case hex (migration 0007): the offer events' identifier. */
  identifier: string;
  ean: string;
  /** The seller's price in cents; the public price adds the service fee. */
  price_cents: number;
  condition: string;
  remarks: string | null;
  status: string;
  /** When the offer was first published; null while it never was (a draft's withdrawal is nobody's business). */
  published_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Written by triggers on `offers` (migration 0003): one row per EAN whose offers changed. */
export interface OfferChangesTable {
  id: Generated<number>;
  ean: string;
  changed_at: number;
}

/** Written by triggers on `schools` (migration 0010): one row per school inserted, updated or deleted. */
export interface SchoolChangesTable {
  id: Generated<number>;
  identifier: string;
  changed_at: number;
}

export interface SchoolsTable {
  identifier: string;
  name: string;
  type: string;
  location: string | null;
  brin: string | null;
  created_at: number;
  updated_at: number;
}

export interface ListsTable {
  identifier: string;
  slug: string;
  school_identifier: string;
  name: string;
  comment: string | null;
  school_year: number | null;
  duo_code: string | null;
  /** JSON array of tag names between the school and the list, e.g. ["Amsterdam","2026-2027","ICT"]. */
  tags: string;
  status: string;
  imported: number;
  /** JSON array of list items. */
  items: string;
  created_at: number;
  updated_at: number;
}

export interface SubscriptionsTable {
  id: string;
  client_ref: string;
  notification_url: string;
  /** Canonical dotted event name, e.g. list.published. */
  event: string;
  /** The spelling the client used, echoed back. */
  event_as_given: string;
  status: string;
  disabled_reason: string | null;
  /** Start of the current run of failed attempts; null after any success. */
  failing_since: number | null;
  /** The last success recorded, to the minute (refreshed at most once a minute; migration 0013). */
  last_success_at: number | null;
  /** Failed attempts in a row since the last success (reset by one), kept by the completions. */
  consecutive_failures: Generated<number>;
  /** Offer events only: the filter as echoed, JSON {"eans":[…]} or {"list":"…"}; null for every event. */
  filter: string | null;
  /** The list whose current items a {"list"} filter follows. */
  filter_list: string | null;
  created_at: number;
  updated_at: number;
}

/** The EANs of a subscription's {"eans"} filter, one row each (migration 0007). */
export interface SubscriptionFilterEansTable {
  subscription_id: string;
  ean: string;
}

/** The failing period of a subscription that subscription.failing was sent for (once per period). */
export interface SubscriptionNoticesTable {
  subscription_id: string;
  failing_since: number;
  noticed_at: number;
}

/** A remembered answer to a POST that carried an Idempotency-Key, per owner (a client or the operator). */
export interface IdempotencyKeysTable {
  /** `client:<clients.id>` or `admin`. */
  owner: string;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  request_hash: string;
  /** Null while the first request is still running. */
  status_code: number | null;
  /** JSON object of the replayed headers (content-type, location). */
  response_headers: string | null;
  response_body: string | null;
  created_at: number;
  expires_at: number;
}

export interface PortalLinksTable {
  /** SHA-256 of the one-time token; the token itself is never stored. */
  token_hash: string;
  client_ref: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface WebSessionsTable {
  /** SHA-256 of the cookie value. */
  id_hash: string;
  /** 'portal' (one client) or 'console' (the operator). */
  kind: string;
  client_ref: string | null;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  /** The console session's operator (migration 0015); null when it was opened with the admin token. */
  operator_issuer: Generated<string | null>;
  operator_sub: Generated<string | null>;
  operator_email: Generated<string | null>;
  operator_name: Generated<string | null>;
  operator_role: Generated<string | null>;
  /** The provider's ID token, the hint its logout endpoint takes. */
  id_token: Generated<string | null>;
}

/** Set by `offers import`: a row's stable key, so a second run updates instead of duplicating. */
export interface OfferImportKeysTable {
  import_key: string;
  offer_id: number;
}

export interface Database {
  settings: SettingsTable;
  signing_keys: SigningKeysTable;
  clients: ClientsTable;
  offers: OffersTable;
  offer_changes: OfferChangesTable;
  school_changes: SchoolChangesTable;
  schools: SchoolsTable;
  lists: ListsTable;
  subscriptions: SubscriptionsTable;
  subscription_notices: SubscriptionNoticesTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  delivery_stats: DeliveryStatsTable;
  idempotency_keys: IdempotencyKeysTable;
  portal_links: PortalLinksTable;
  web_sessions: WebSessionsTable;
  offer_import_keys: OfferImportKeysTable;
  subscription_filter_eans: SubscriptionFilterEansTable;
  operators: OperatorsTable;
  oidc_sign_ins: OidcSignInsTable;
  api_tokens: ApiTokensTable;
  audit_records: AuditRecordsTable;
  audit_chain: AuditChainTable;
  worker_heartbeats: WorkerHeartbeatsTable;
}

export type ClientRow = Selectable<ClientsTable>;
export type OfferRow = Selectable<OffersTable>;
export type NewOffer = Insertable<OffersTable>;
export type NewDelivery = Insertable<DeliveriesTable>;
export type NewDeliveryAttempt = Insertable<DeliveryAttemptsTable>;
export type OfferUpdate = Updateable<OffersTable>;
export type SchoolRow = Selectable<SchoolsTable>;
export type ListRow = Selectable<ListsTable>;
export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
export type WebSessionRow = Selectable<WebSessionsTable>;
