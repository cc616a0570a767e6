/**
 * Every action the audit log records, in one place: the type check refuses any other name, the
 * target type of a record comes from here, and docs/operating/operators-and-audit.md's catalogue
 * table is generated from it (`npm run docs:audit`). Add an action here before recording it.
 */

/** Who may cause an action: operators (operator, admin-token or api-token actors), partners, the system. */
export type AuditBy = 'operator' | 'partner' | 'system';

export interface AuditActionSpec {
  /** The target's type; the target id is the resource's own id. */
  readonly target: string;
  readonly by: readonly AuditBy[];
  /** What happened, and which fields `changes` carries. */
  readonly summary: string;
}

const operator: readonly AuditBy[] = ['operator'];
const operatorOrPartner: readonly AuditBy[] = ['operator', 'partner'];

export const AUDIT_ACTIONS = {
  'client.created': {
    target: 'client',
    by: operator,
    summary: 'An API client was created: `name`, `scopes`, `status`. Its secrets are never recorded.',
  },
  'client.secret.reset': {
    target: 'client',
    by: operatorOrPartner,
    summary: 'The client secret was reset: `clientSecret` (only "rotated"), `tokensValidAfter`.',
  },
  'client.webhook-secret.rotated': {
    target: 'client',
    by: operatorOrPartner,
    summary: 'The webhook secret was rotated: `webhookSecret` (only "rotated"), `previousSecretValidUntil`.',
  },
  'client.revoked': {
    target: 'client',
    by: operator,
    summary:
      'A client was revoked, and with it what acted for it: `status`, `subscriptionsEnded`, `deliveriesCancelled`, `portalSessionsEnded`, `portalLinksVoided`.',
  },
  'portal.link.created': {
    target: 'client',
    by: operator,
    summary: "A one-time sign-in link to the client's partner portal was minted: `expiresAt` (never the link).",
  },
  'subscription.created': {
    target: 'subscription',
    by: operatorOrPartner,
    summary: 'A webhook subscription was registered: `client`, `url`, `events`, `filter`, `status`.',
  },
  'subscription.deleted': {
    target: 'subscription',
    by: operatorOrPartner,
    summary: 'A subscription was deleted (its pending deliveries dropped): `url`, `events`, `status`.',
  },
  'subscription.reenabled': {
    target: 'subscription',
    by: operatorOrPartner,
    summary: 'A disabled subscription was re-enabled: `status`.',
  },
  'subscription.recovered': {
    target: 'subscription',
    by: operatorOrPartner,
    summary: 'A subscription was re-enabled and its failed deliveries re-sent: `status`, `resent`, `since`.',
  },
  'subscription.disabled': {
    target: 'subscription',
    by: ['system'],
    summary: 'Delivery disabled a subscription (410 Gone or failing too long): `status`.',
  },
  'subscription.pinged': {
    target: 'subscription',
    by: operatorOrPartner,
    summary: 'A test webhook (ping) was queued for the subscription: `delivery`.',
  },
  'subscription.replayed': {
    target: 'subscription',
    by: operatorOrPartner,
    summary: 'Past events were queued again for the subscription (a replay): `queued`, `from`.',
  },
  'delivery.retried': {
    target: 'delivery',
    by: operatorOrPartner,
    summary: 'A finished delivery was queued again: `status`, `nextAttemptAt`.',
  },
  'delivery.sent-now': {
    target: 'delivery',
    by: operatorOrPartner,
    summary: 'A delivery waiting for its next retry was made due now: `nextAttemptAt`.',
  },
  'school.created': { target: 'school', by: operator, summary: 'A school was created: its fields.' },
  'school.updated': { target: 'school', by: operator, summary: 'A school was changed: the fields that changed.' },
  'list.created': {
    target: 'list',
    by: operator,
    summary: 'A list was created: `school`, `name`, `status`, `items` (a count; list contents are not copied).',
  },
  'list.updated': {
    target: 'list',
    by: operator,
    summary: 'A list was changed: the scalar fields that changed; `items` as a count.',
  },
  'list.status.changed': { target: 'list', by: operator, summary: "A list's status changed: `status`." },
  'lists.imported': {
    target: 'import',
    by: operator,
    summary: 'A learning-material list file was imported: counts of what it created and changed.',
  },
  'offer.created': { target: 'offer', by: operator, summary: 'An offer was created: its fields.' },
  'offer.updated': { target: 'offer', by: operator, summary: 'An offer was changed: the fields that changed.' },
  'offer.deleted': { target: 'offer', by: operator, summary: 'An offer was deleted: its fields before.' },
  'offers.imported': {
    target: 'import',
    by: operator,
    summary: 'An offer file was imported: counts of what it created and changed.',
  },
  'admin-token.reset': {
    target: 'admin-token',
    by: ['operator', 'system'],
    summary:
      'The admin token was replaced (a reset, or a start with another ADMIN_TOKEN, by the system), ending the console sessions it opened: `token` (only "rotated"), `consoleSessionsEnded`.',
  },
  'retention.pruned': {
    target: 'retention',
    by: ['system', 'operator'],
    summary: 'A prune removed old history: rows per table (`after`), and for the audit log the new `anchor`.',
  },
  'operator.role.changed': {
    target: 'operator',
    by: ['operator', 'system'],
    summary: "An operator's role changed (by an operator, or at sign-in from the provider's claims): `role`.",
  },
  'operator.signed-in': {
    target: 'operator',
    by: operator,
    summary:
      'An operator signed in to the console through the identity provider: `email`, `name`, `role` where they changed since the last sign-in (all of them at the first).',
  },
  'operator.disabled': { target: 'operator', by: operator, summary: 'An operator was disabled: `status`.' },
  'api-token.created': {
    target: 'api-token',
    by: operator,
    summary: 'A named API token for automation was created: `name`, `role`, `secret` (only "rotated").',
  },
  'api-token.revoked': { target: 'api-token', by: operator, summary: 'An API token was revoked: `status`.' },
  'operator.enabled': { target: 'operator', by: operator, summary: 'A disabled operator was enabled: `status`.' },
} as const satisfies Record<string, AuditActionSpec>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const isAuditAction = (value: string): value is AuditAction => Object.hasOwn(AUDIT_ACTIONS, value);

export const targetTypeOf = (action: AuditAction): string => AUDIT_ACTIONS[action].target;
