/**
 * Baseline servers: a bare Fastify answering {"hello":"world"}, or (with a body file) the same bytes
 * Shelfmark's offers call returns, served from memory. Argument: port [bodyFile].
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const port = Number(process.argv[2]);
const bodyFile = process.argv[3];
const body = bodyFile === undefined ? undefined : readFileSync(bodyFile, 'utf8');
const app = Fastify({ logger: false });
if (body === undefined) {
  app.get('/', async () => ({ hello: 'world' }));
} else {
  app.get('/*', (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(body);
  });
}
await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`READY ${JSON.stringify({ port })}\n`);
const stop = (): void => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
