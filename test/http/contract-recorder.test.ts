/**
 * The suite's contract recorder (test/support/contract.ts), which every harness app carries: an answer
 * with a status, content type or body its operation does not document is reported; a documented one,
 * a route the document hides and an unknown path are not.
 */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { watchContract } from '../support/contract.js';

async function appWithContract() {
  const app = Fastify();
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
  const violations = watchContract(app);
  const answer = {
    200: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', maxLength: 5 } },
      additionalProperties: false,
    },
  };
  app.get('/things/:id', { schema: { response: answer } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    // A status the route's schema does not list: the type of `code` says so, the recorder must too.
    if (id === 'teapot') return (reply as FastifyReply).code(418).send({ name: 'tea' });
    if (id === 'text') return reply.type('text/plain').send('plain');
    return { name: id };
  });
  // The body is sent as serialised by hand, so the recorder sees what the schema would not allow.
  app.get('/loose', { schema: { response: answer } }, async (_request, reply) =>
    reply
      .type('application/json')
      .serializer((x) => JSON.stringify(x))
      .send({ name: 'far too long', extra: 1 }),
  );
  app.get('/hidden', { schema: { hide: true } }, async () => ({ anything: true }));
  await app.ready();
  return { app, violations };
}

describe('the contract recorder', () => {
  it('passes documented answers, hidden routes and unknown paths', async () => {
    const { app, violations } = await appWithContract();
    expect((await app.inject({ url: '/things/abc' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/hidden' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/nowhere' })).statusCode).toBe(404);
    expect(violations).toEqual([]);
    await app.close();
  });

  it('reports an undocumented status, content type and a body outside the schema', async () => {
    const { app, violations } = await appWithContract();
    await app.inject({ url: '/things/teapot' });
    await app.inject({ url: '/things/text' });
    await app.inject({ url: '/loose' });
    expect(violations).toEqual([
      'GET /things/{id} → 418: status not documented (documented: 200)',
      'GET /things/{id} → 200: text/plain not documented (application/json)',
      expect.stringMatching(
        /^GET \/loose → 200: data must NOT have additional properties, data\/name must NOT have more than 5 characters in /,
      ),
    ]);
    await app.close();
  });
});
