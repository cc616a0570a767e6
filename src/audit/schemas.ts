/** The audit log's wire shapes (GET /api/admin/v1/audit), one TypeBox source for validation and the OpenAPI document. */
import { type Static, Type } from '@sinclair/typebox';
import { ACTOR_TYPES, ROLES } from '../vocabulary/actor.js';
import { AUDIT_ACTIONS } from './catalogue.js';
import { NAMED_SUBJECTS } from './model.js';

const nullableString = (description?: string) => Type.Union([Type.String(), Type.Null()], { description });

export const AuditRecordSchema = Type.Object(
  {
    id: Type.String({ examples: ['aud_0AbCdEfGh1234567890123'] }),
    at: Type.String({ format: 'date-time' }),
    requestId: nullableString('The request that made the change; null for the CLI and the system'),
    actor: Type.Object({
      type: Type.Union(ACTOR_TYPES.map((type) => Type.Literal(type))),
      id: nullableString(
        'Operator sub, API token id, partner client id (cli_…), `cli`; null for the admin token and the system',
      ),
      name: nullableString('Operator e-mail or name, token name, "admin token", "cli (<os user>)"'),
    }),
    role: Type.Union([...ROLES.map((role) => Type.Literal(role)), Type.Null()]),
    ip: nullableString(),
    userAgent: nullableString(),
    action: Type.String({ description: `One of the audit catalogue: ${Object.keys(AUDIT_ACTIONS).join(', ')}` }),
    target: Type.Object({ type: Type.String(), id: Type.String() }),
    changes: Type.Record(Type.String(), Type.Object({ before: Type.Unknown(), after: Type.Unknown() }), {
      description: 'The changed fields; a secret only ever as "rotated", list items as a count, no payload',
    }),
    prevHash: Type.String({ description: 'The hash of the record before it (64 zeros for the first)' }),
    hash: Type.String({
      description:
        'SHA-256 (hex) of prevHash + the canonical JSON (sorted keys) of the record without prevHash and hash',
    }),
  },
  { additionalProperties: false },
);

export const AuditQuerySchema = Type.Object(
  {
    actor: Type.Optional(
      Type.String({ maxLength: 200, description: 'Actor id, name (e-mail) or type (`system`, `admin-token`, …)' }),
    ),
    action: Type.Optional(
      Type.String({ maxLength: 100, description: 'An action, or every action under a prefix: `client.*`' }),
    ),
    targetType: Type.Optional(Type.String({ maxLength: 40 })),
    targetId: Type.Optional(Type.String({ maxLength: 100 })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'At or after this instant' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Before this instant' })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'The id of the last record of the previous page: the older records after it',
      }),
    ),
    ending_before: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'The id of the first (newest) record of the page shown: the records newer than it, newest first, `has_more` ' +
          'then saying whether there are newer ones still. Not together with starting_after',
      }),
    ),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('ndjson')], {
        description:
          '`ndjson`: every matching record, oldest first (chain order), one JSON object a line, streamed as ' +
          '`application/x-ndjson` with no page size (limit and starting_after are ignored) — for a SIEM',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuditSubjectSchema = Type.Object(
  {
    type: Type.Union(
      NAMED_SUBJECTS.map((type) => Type.Literal(type)),
      {
        description:
          "A record's target type, or `client` for a partner actor and a subscription's client, `school` for a list's school",
      },
    ),
    id: Type.String({
      description: 'As the records carry it: target.id, actor.id or the value of a change',
      examples: ['cli_0AbCdEfGh1234567890123'],
    }),
    name: Type.String({
      description:
        "Its name now: a client's, school's, list's or API token's name, an operator's e-mail, a subscription's event",
      examples: ['Boekhandel Noord'],
    }),
    owner: nullableString("Whose it is: a list's school's name, a subscription's client's name; null for the rest"),
  },
  { additionalProperties: false },
);
export type AuditSubject = Static<typeof AuditSubjectSchema>;

export const AuditPageSchema = Type.Object({
  has_more: Type.Boolean(),
  data: Type.Array(AuditRecordSchema),
  subjects: Type.Array(AuditSubjectSchema, {
    description:
      "The named subjects the records of this page refer to (targets, partner actors, a list's school, a " +
      "subscription's client), each once, by type and id, as they are named now; a deleted one is left out",
  }),
});
