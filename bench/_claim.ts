import { startInstance } from './support.js';
import { ids } from '../src/ids.js';
import { DeliveryStore } from '../src/delivery/store.js';
const engine = (process.env.ENGINE ?? 'sqlite') as 'sqlite' | 'postgres';
const inst = await startInstance(engine, { webhookAllowPrivate: true });
const { services } = inst.app;
const client = await services.clients.create({ name: 'b' });
const now = Date.now();
await inst.db.kysely.insertInto('subscriptions').values(Array.from({ length: 10 }, (_, i) => ({ id: ids.subscription(), client_ref: client.id, notification_url: `http://127.0.0.1:1/h${i}`, event: 'list.updated', event_as_given: 'list.updated', status: 'active', disabled_reason: null, failing_since: null, created_at: now, updated_at: now }))).execute();
for (let e = 0; e < 500; e++) await services.outbox.transaction(async (_t, emit) => emit({ name: 'list.updated', type: 'updated', resource: 'list', identifier: ids.resourceIdentifier() }));
const store = new DeliveryStore(inst.db);
let tClaim = 0, tCtx = 0, tDone = 0, n = 0;
while (true) {
  let t = performance.now();
  const c = await store.claim({ owner: 'w', now: Date.now(), leaseMs: 20000, limit: 8, perSubscription: 8, lane: 'first' });
  tClaim += performance.now() - t;
  if (c.length === 0) break;
  t = performance.now();
  await store.contexts(c.map((r) => r.id));
  tCtx += performance.now() - t;
  t = performance.now();
  await store.completeMany(c.map((r) => ({ id: r.id, owner: 'w', subscriptionId: r.subscription_id, now: Date.now(), attempt: { attemptNo: 1, startedAt: Date.now(), durationMs: 1, statusCode: 204, errorClass: null, errorMessage: null, responseBody: '' }, status: 'succeeded' as const, nextAttemptAt: Date.now(), failingCutoff: 0 })));
  tDone += performance.now() - t;
  n += c.length;
}
console.log(engine, n, 'deliveries; per delivery µs: claim', (tClaim * 1000 / n).toFixed(0), 'contexts', (tCtx * 1000 / n).toFixed(0), 'complete', (tDone * 1000 / n).toFixed(0));
await inst.close();
process.exit(0);
