/**
 * The storage view on the wire (GET /api/admin/v1/storage): rows and the oldest row per bounded table,
 * the database's size, the retention settings in force and the last prune. The service, the route and
 * the console page take their types from here.
 */
import { type Static, Type } from '@sinclair/typebox';
import { BOUNDED_TABLES, PRUNE_TARGETS } from './policy.js';

const Time = Type.String({ format: 'date-time' });
const days = (description: string) => Type.Integer({ minimum: 0, description: `${description}; 0 = forever` });

export const StorageTableSchema = Type.Object({
  table: Type.Union(
    BOUNDED_TABLES.map((table) => Type.Literal(table)),
    { examples: ['deliveries'] },
  ),
  rows: Type.Integer({ minimum: 0 }),
  rowsExact: Type.Boolean({
    description:
      "False when `rows` is PostgreSQL's estimate (pg_class.reltuples, for tables of 100,000 rows and more); SQLite always counts",
  }),
  oldestAt: Type.Union([Time, Type.Null()], { description: 'The oldest row (null when the table is empty)' }),
  bound: Type.String({
    description: 'What pruning keeps, in words',
    examples: ['succeeded older than 30 days, failed older than 90 days (since completion); pending never'],
  }),
});

export const LastPruneSchema = Type.Object({
  startedAt: Time,
  finishedAt: Time,
  complete: Type.Boolean({ description: 'False when it ended early (shutdown); the next prune goes on' }),
  rows: Type.Object(Object.fromEntries(PRUNE_TARGETS.map((target) => [target, Type.Integer({ minimum: 0 })])), {
    description: 'Rows removed per table (response_bodies: answers cleared on attempts)',
    additionalProperties: false,
  }),
});

export const StorageSchema = Type.Object(
  {
    engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
    databaseBytes: Type.Integer({
      minimum: 0,
      description:
        "SQLite: page_count × page_size (the WAL file apart); PostgreSQL: the schema's tables with their indexes and TOAST",
    }),
    freeBytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'SQLite: free pages inside the file, reused by new rows; null on PostgreSQL',
    }),
    autoVacuum: Type.Union([Type.Literal('none'), Type.Literal('full'), Type.Literal('incremental'), Type.Null()], {
      description:
        'SQLite: incremental = a prune returns freed pages to the file system; none = they are reused (`shelfmark prune --vacuum` switches once); null on PostgreSQL',
    }),
    tables: Type.Array(StorageTableSchema),
    retention: Type.Object({
      deliveryDays: days('DELIVERY_RETENTION_DAYS'),
      failedDeliveryDays: days('FAILED_DELIVERY_RETENTION_DAYS'),
      eventDays: days('EVENT_RETENTION_DAYS'),
      responseBodyDays: days('RESPONSE_BODY_RETENTION_DAYS'),
      statsDays: days('DELIVERY_STATS_RETENTION_DAYS'),
      auditDays: days('AUDIT_RETENTION_DAYS'),
      pruneIntervalSeconds: Type.Integer({ minimum: 0, description: 'PRUNE_INTERVAL_SECONDS; 0 = only on demand' }),
      pruneBatchSize: Type.Integer({ minimum: 1 }),
      prunePauseMs: Type.Integer({ minimum: 0 }),
    }),
    lastPrune: Type.Union([LastPruneSchema, Type.Null()], { description: 'Null before the first prune' }),
    generatedAt: Time,
  },
  { $id: 'Storage' },
);

export type StorageView = Static<typeof StorageSchema>;
export type StorageTable = Static<typeof StorageTableSchema>;
