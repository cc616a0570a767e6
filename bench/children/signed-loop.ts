/**
 * The delivery floor, in a process of its own: N HMAC-signed POSTs (the same headers Shelfmark's
 * worker sends, built by the project's own signer) through undici with keep-alive, `concurrency` at
 * a time, no database. Argument: JSON {url, total, concurrency}. The receiver measures the rate.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { signedHeaders } from '../../src/delivery/signer.js';
import { webhookPayload } from '../../src/events/catalogue.js';

const args = JSON.parse(process.argv[2] ?? '{}') as { url: string; total: number; concurrency: number };
const secrets = { current: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, previous: undefined };
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
let next = 0;
let failures = 0;
const lane = async (): Promise<void> => {
  while (next < args.total) {
    next++;
    const body = webhookPayload({ type: 'created', resource: 'school', identifier: randomUUID().replaceAll('-', '') });
    const headers = signedHeaders({
      deliveryId: `dlv_${randomUUID()}`,
      eventName: 'school.created',
      body,
      now: Date.now(),
      secrets,
    });
    const response = await request(args.url, { method: 'POST', dispatcher: agent, body, headers });
    await response.body.dump();
    if (response.statusCode >= 300) failures++;
  }
};
await Promise.all(Array.from({ length: args.concurrency }, lane));
await agent.close();
process.stdout.write(`RESULT ${JSON.stringify({ sent: args.total, failures })}\n`);
