import type { Kysely } from 'kysely';

/** Migrations describe tables that do not exist yet, so they see the database untyped. */
export type UntypedDb = Kysely<unknown>;
