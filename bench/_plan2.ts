import { sql } from 'kysely';
import { startInstance } from './support.js';
const inst = await startInstance('sqlite', {});
for (const q of [
 `explain query plan with v (delivery_id, attempt_no, status_code, finished_at) as (values ('a', 1, 204, 5), ('b', 1, 204, 5)) update deliveries set status = 'succeeded', attempt_count = v.attempt_no from v where deliveries.id = v.delivery_id and deliveries.lease_owner = 'x' and deliveries.status = 'pending' returning deliveries.id`,
 `explain query plan select d.id from deliveries d join events e on e.id = d.event_id join subscriptions s on s.id = d.subscription_id where d.id in ('a','b')`,
]) console.log((await sql.raw(q).execute(inst.db.kysely)).rows.map((r: any) => r.detail));
await inst.close(); process.exit(0);
