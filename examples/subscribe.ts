/**
 * Sets up a webhook subscription and sends it a test ping.
 *
 *   npx tsx examples/subscribe.ts http://127.0.0.1:8080/hooks [event]
 *
 * The event defaults to list-published (see the README's event table). Registering the same URL and
 * event again answers the existing subscription, so the script is safe to rerun. A receiver on a
 * loopback or private address needs the server started with WEBHOOK_ALLOW_PRIVATE=true.
 */
import type { CreateSubscription, PingResult, ShelfmarkClient, Subscription } from '@shelfmark/client';
import { clientFromEnv, isMain } from './env.js';

export async function setUpSubscription(
  client: ShelfmarkClient,
  notificationUrl: string,
  event: CreateSubscription['event'] = 'list-published',
): Promise<{ subscription: Subscription; ping: PingResult; all: Subscription[] }> {
  const subscription = await client.subscriptions.create({ notificationUrl, event });
  const ping = await client.subscriptions.ping(subscription.id);
  const all: Subscription[] = [];
  for await (const each of client.subscriptions.list()) all.push(each);
  return { subscription, ping, all };
}

if (isMain(import.meta.url)) {
  const url = process.argv[2];
  if (url === undefined) {
    console.error('usage: npx tsx examples/subscribe.ts <notification URL> [event]');
    process.exit(2);
  }
  // Whatever was typed: the server answers an unknown event with a 400 that lists the accepted ones.
  const event = process.argv[3] as CreateSubscription['event'] | undefined;
  const { subscription, ping, all } = await setUpSubscription(clientFromEnv(), url, event);
  console.log(
    `subscription ${subscription.id}: ${subscription.event} -> ${subscription.notificationUrl} (${subscription.status})`,
  );
  console.log(
    ping.ok
      ? `test ping delivered (HTTP ${ping.statusCode}) as delivery ${ping.deliveryId}`
      : `test ping FAILED (${ping.error}) as delivery ${ping.deliveryId}`,
  );
  console.log(`you have ${all.length} subscription${all.length === 1 ? '' : 's'}:`);
  for (const each of all) console.log(`  ${each.id}  ${each.event}  ${each.notificationUrl}  ${each.status}`);
}
