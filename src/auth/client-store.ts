/** SQL for API clients (credentials, scopes, webhook secrets). */
import { compiledQuery, type Executor } from '../db/database.js';
import type { ClientRow, ClientsTable } from '../db/schema.js';
import type { Updateable } from 'kysely';

export class ClientStore {
  /** Every token request and every cold token verification looks a client up by its client id. */
  private readonly byClientId: (clientId: string) => Promise<ClientRow[]>;

  constructor(private readonly db: Executor) {
    this.byClientId = compiledQuery(db, (q) => q.selectFrom('clients').selectAll().where('client_id', '=', ''));
  }

  async insert(row: ClientRow): Promise<void> {
    await this.db.insertInto('clients').values(row).execute();
  }

  findById(id: string): Promise<ClientRow | undefined> {
    return this.db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByClientId(clientId: string): Promise<ClientRow | undefined> {
    return (await this.byClientId(clientId))[0];
  }

  list(): Promise<ClientRow[]> {
    return this.db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async update(id: string, changes: Updateable<ClientsTable>): Promise<ClientRow | undefined> {
    await this.db.updateTable('clients').set(changes).where('id', '=', id).execute();
    return this.findById(id);
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('clients').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
