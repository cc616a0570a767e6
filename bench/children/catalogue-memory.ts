/**
 * The catalogue's ceiling: a bare Fastify server that reads every published offer once at start and
 * keeps each EAN's offers as one ready JSON fragment, so an answer is map look-ups and a join.
 * Arguments: port, engine (sqlite | postgres), database URL, service fee in cents.
 */
import Fastify from 'fastify';
import { eansOf, offerJson, openCatalogue } from '../lib/catalogue-db.js';

const [port, engine, url, fee] = process.argv.slice(2);
const feeCents = Number(fee);
const catalogue = openCatalogue(engine === 'postgres' ? 'postgres' : 'sqlite', url ?? '');
const fragments = new Map<string, string>();
for (const row of await catalogue.all()) {
  const before = fragments.get(row.ean);
  const json = offerJson(row, feeCents);
  fragments.set(row.ean, before === undefined ? json : `${before},${json}`);
}
await catalogue.close();
const app = Fastify({ logger: false });
app.get<{ Querystring: { eans?: string } }>('/api/v1/offers', (request, reply) => {
  let body = '';
  for (const ean of eansOf(request.query.eans)) {
    const fragment = fragments.get(ean);
    if (fragment !== undefined) body += body === '' ? fragment : `,${fragment}`;
  }
  void reply.type('application/json; charset=utf-8').send(`[${body}]`);
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write(`READY ${JSON.stringify({ port: Number(port), eans: fragments.size })}\n`);
const stop = (): void => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
