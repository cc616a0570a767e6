/**
 * Admin: the audit log. `viewer` may read it: records carry who changed what, never a secret. Reads
 * are not audited.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { AuditPageSchema, AuditQuerySchema } from './schemas.js';
import type { AuditFilter, AuditStore } from './store.js';

export interface AuditRoutesOptions {
  audit: AuditStore;
}

const instant = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Date.parse(value);

export const adminAuditRoutes: FastifyPluginAsyncTypebox<AuditRoutesOptions> = async (app, { audit }) => {
  app.get(
    '/audit',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminListAudit',
        tags: ['admin: audit'],
        summary: 'The audit log: who changed what, newest first, with filters; ?format=ndjson exports every match',
        description:
          'Every state change made through the admin API, the console, the CLI and the partner portal, and the ' +
          "system's own (a subscription disabled by delivery, a prune), each chained to the one before by a SHA-256 " +
          'hash. Pages go newest first, older ones by `starting_after`, newer ones by `ending_before`, and name what their ' +
          'records are about (`subjects`); `?format=ndjson` streams every matching record oldest first.',
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema },
        documentedResponses: {
          200: {
            description: 'A page, or with ?format=ndjson every matching record',
            content: {
              'application/x-ndjson': {
                schema: {
                  type: 'string',
                  description: 'One audit record (as in a page) a line, oldest first, each line ending in \\n',
                },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { actor, action, targetType, targetId, since, until, limit, starting_after, ending_before, format } =
        request.query;
      const filter: AuditFilter = { actor, action, targetType, targetId, since: instant(since), until: instant(until) };
      if (format !== 'ndjson') {
        const page = await audit.page(filter, limit, { after: starting_after, before: ending_before });
        return { ...page, subjects: await audit.subjectsOf(page.data) };
      }
      const lines = async function* () {
        for await (const { seq: _seq, ...record } of audit.all(filter)) yield `${JSON.stringify(record)}\n`;
      };
      // A stream is sent as it is (Fastify serialises no stream), so the page schema does not apply to it.
      const stream = Readable.from(lines()) as unknown as Static<typeof AuditPageSchema>;
      return reply.type('application/x-ndjson').header('cache-control', 'no-store').send(stream);
    },
  );
};
