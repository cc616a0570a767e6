/**
 * Set-up for the fan-out scenario, run BEFORE the server starts, on the same database: migrates, then
 * registers `count` subscriptions to one event for one client through the project's own services
 * (the same rules as the public API), each with its own URL on the receiver. Prints RESULT {clientId}.
 * Argument: JSON {databaseUrl, receiverUrl, count, event}.
 */
import { SYSTEM } from '../../src/audit/initiator.js';
import { systemClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createServices } from '../../src/main/services.js';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  databaseUrl: string;
  receiverUrl: string;
  count: number;
  event: string;
};
const db = await connectDatabase(args.databaseUrl);
await migrateToLatest(db);
// One client holds every subscription, so its cap is raised the way an operator would (MAX_SUBSCRIPTIONS_PER_CLIENT).
const services = await createServices({
  config: testConfig({ webhookAllowPrivate: true, maxSubscriptionsPerClient: args.count }),
  db,
  clock: systemClock,
});
const client = await services.clients.create({ name: 'bench fan-out', scopes: ['webhooks:manage'] }, SYSTEM);
for (let i = 0; i < args.count; i++) {
  await services.subscriptions.create(
    client.id,
    { notificationUrl: `${args.receiverUrl}?s=${i}`, event: args.event },
    SYSTEM,
  );
}
await db.close();
process.stdout.write(`RESULT ${JSON.stringify({ clientId: client.clientId, subscriptions: args.count })}\n`);
