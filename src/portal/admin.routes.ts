/** Admin: one-time partner-portal sign-in links (the operator hands the link to the partner). */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import type { WebSessions } from '../identity/sessions.js';

export const PortalLinkSchema = Type.Object(
  {
    clientId: Type.String(),
    path: Type.String({
      description: '/portal/sign-in#<token>: the token travels in the fragment, so it never reaches a server log',
    }),
    url: Type.String({ description: 'Absolute link (PUBLIC_BASE_URL, or the host this request was made to)' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'PortalLink' },
);

export interface AdminPortalRoutesOptions {
  webSessions: WebSessions;
  /** Where links point when PUBLIC_BASE_URL is set. */
  publicBaseUrl: string | undefined;
}

export const adminPortalRoutes: FastifyPluginAsyncTypebox<AdminPortalRoutesOptions> = async (
  app,
  { webSessions, publicBaseUrl },
) => {
  app.post(
    '/clients/:id/portal-link',
    {
      config: {
        auth: 'admin',
        role: 'support',
        idempotent: true,
        audit: 'portal.link.created',
        problems: ['conflict'],
      },
      schema: {
        operationId: 'createAdminClientsPortalLink',
        tags: ['admin: clients'],
        summary: "Create a one-time sign-in link to the client's partner portal (valid 15 minutes, single use)",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 201: PortalLinkSchema },
      },
    },
    async (request, reply) => {
      const base = publicBaseUrl ?? `${request.protocol}://${request.host}`;
      void reply.code(201).header('cache-control', 'no-store');
      return webSessions.createPortalLink(request.params.id, initiatorOf(request), base);
    },
  );
};
