import { startInstance } from './support.js';
import { ids } from '../src/ids.js';
import { sql } from 'kysely';
import { DeliveryStore } from '../src/delivery/store.js';
const inst = await startInstance('sqlite', { webhookAllowPrivate: true });
const { services } = inst.app;
const client = await services.clients.create({ name: 'b' });
const now = Date.now();
await inst.db.kysely.insertInto('subscriptions').values(Array.from({ length: 10 }, (_, i) => ({ id: ids.subscription(), client_ref: client.id, notification_url: `http://127.0.0.1:1/h${i}`, event: 'list.updated', event_as_given: 'list.updated', status: 'active', disabled_reason: null, failing_since: null, created_at: now, updated_at: now }))).execute();
for (let e = 0; e < 500; e++) await services.outbox.transaction(async (_t, emit) => emit({ name: 'list.updated', type: 'updated', resource: 'list', identifier: ids.resourceIdentifier() }));
const store = new DeliveryStore(inst.db);
for (const limit of [8, 16, 32, 64]) {
  const t = performance.now(); let k = 0;
  for (let i = 0; i < 20; i++) { const c = await store.claim({ owner: 'w' + i, now: Date.now() + i * 100000, leaseMs: 1, limit, perSubscription: 64, lane: 'first' }); k += c.length; }
  console.log('limit', limit, 'ms per claim', ((performance.now() - t) / 20).toFixed(2), 'claimed', k / 20);
}
const plan = await sql.raw(`explain query plan select id, subscription_id, next_attempt_at from deliveries where status = 'pending' and attempt_count = 0 and next_attempt_at <= 1 and (lease_until is null or lease_until < 1) order by next_attempt_at, id limit 64`).execute(inst.db.kysely);
console.log(plan.rows);
const plan2 = await sql.raw(`explain query plan select subscription_id from deliveries where lease_until >= 5`).execute(inst.db.kysely);
console.log(plan2.rows);
await inst.close(); process.exit(0);
