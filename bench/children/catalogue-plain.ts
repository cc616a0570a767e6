/**
 * The catalogue's straightforward baseline: a bare Fastify server that answers the offers call with a
 * query per request and serialises the rows, as a first version of the service would. Arguments:
 * port, engine (sqlite | postgres), database URL, service fee in cents.
 */
import Fastify from 'fastify';
import { eansOf, offerJson, openCatalogue } from '../lib/catalogue-db.js';

const [port, engine, url, fee] = process.argv.slice(2);
const feeCents = Number(fee);
const catalogue = openCatalogue(engine === 'postgres' ? 'postgres' : 'sqlite', url ?? '');
const app = Fastify({ logger: false });
app.get<{ Querystring: { eans?: string } }>('/api/v1/offers', async (request, reply) => {
  const rows = await catalogue.published(eansOf(request.query.eans));
  return reply
    .type('application/json; charset=utf-8')
    .send(`[${rows.map((row) => offerJson(row, feeCents)).join(',')}]`);
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write(`READY ${JSON.stringify({ port: Number(port) })}\n`);
const stop = (): void =>
  void app
    .close()
    .then(() => catalogue.close())
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
