/**
 * A webhook receiver: verifies every request with the receiver kit, answers at once, then prints the
 * event and, for lists, schools and offers, what its identifier names (fetched through the SDK).
 *
 *   PORT=8080 WEBHOOK_SECRET=whsec_... npx tsx examples/receiver.ts
 *
 * WEBHOOK_SECRET defaults to the demo client's; WEBHOOK_PREVIOUS_SECRET may hold the previous one while
 * rotating. Listens on 127.0.0.1 (HOST to change it), path /hooks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeWebhookHandler, type ShelfmarkClient, WebhookDeduplicator, type WebhookEvent } from '@shelfmark/client';
import { clientFromEnv, DEMO_WEBHOOK_SECRET, isMain } from './env.js';

export interface ReceiverOptions {
  port: number;
  host?: string;
  secrets: string[];
  /** To look up what an event names; without it only the event is printed. */
  client?: ShelfmarkClient;
  log?: (line: string) => void;
}

/** What one event is about, in one line. */
export async function describeEvent(event: WebhookEvent, client?: ShelfmarkClient): Promise<string> {
  const head = `${event.event ?? event.type} ${event.resource} ${event.identifier} (webhook-id ${event.id ?? '-'})`;
  if (client === undefined) return head;
  if (event.resource === 'list') {
    const list = await client.lml.lists.get(event.identifier);
    return `${head}: list "${list.name}" of ${list.school.name}, now ${list.status}`;
  }
  if (event.resource === 'school') return `${head}: school "${(await client.lml.schools.get(event.identifier)).name}"`;
  if (event.resource === 'offer') {
    // Only published offers can be fetched; reserved, sold and withdrawn ones answer 404, so say the status.
    if (event.type !== 'published' && event.type !== 'updated') return `${head}: offer is now ${event.type}`;
    const offer = await client.offers.get(event.identifier);
    return `${head}: offer for ${offer.ean} at €${offer.price.toFixed(2)} (${offer.condition})`;
  }
  return head;
}

export async function startReceiver(options: ReceiverOptions): Promise<{ url: string; close(): Promise<void> }> {
  const log = options.log ?? ((line: string) => console.log(line));
  const handler = nodeWebhookHandler({
    secrets: options.secrets,
    deduplicator: new WebhookDeduplicator(),
    onEvent: async (event) => log(await describeEvent(event, options.client)),
    onError: (error) => log(`refused or failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/hooks') return handler(request, response);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}/hooks`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (isMain(import.meta.url)) {
  const secrets = [process.env.WEBHOOK_SECRET ?? DEMO_WEBHOOK_SECRET, process.env.WEBHOOK_PREVIOUS_SECRET].filter(
    (secret): secret is string => secret !== undefined && secret !== '',
  );
  const receiver = await startReceiver({
    port: Number(process.env.PORT ?? 8080),
    ...(process.env.HOST === undefined ? {} : { host: process.env.HOST }),
    secrets,
    client: clientFromEnv(),
  });
  console.log(`receiving webhooks at ${receiver.url}`);
  const stop = (): void => void receiver.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
