/**
 * The addresses of a browser page's sections: `/dashboard/deliveries`,
 * `/dashboard/deliveries/dlv_…`, `/portal/subscriptions` are all answered with the page's HTML shell,
 * whose script then draws the section the address names (src/web/common/router.ts). Only the page's
 * own section words are answered so; any other path under the page (an API path mistyped under
 * /dashboard/api/…, an unknown section) stays a problem+json 404 like every unknown route.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../problems/catalogue.js';
import { type Localized, localizedHandler } from './web-assets.js';

export interface AppPaths {
  /** The page's path, e.g. "/dashboard". */
  base: string;
  /** The words of its sections' addresses, e.g. ["overview", "lists", …]. */
  sections: readonly string[];
  /** The page in each language. */
  html: Localized;
}

/** An item's identifier in an address: ids, 32-hex identifiers, slugs. */
const ITEM = /^[A-Za-z0-9_-]{1,64}$/;

export function serveAppPaths(app: FastifyInstance, { base, sections, html }: AppPaths): void {
  const page = localizedHandler(html);
  const known = new Set(sections);
  const schema = {
    hide: true,
    params: Type.Object({ section: Type.String(), id: Type.Optional(Type.String()) }),
  } as const;
  const handler = async (
    request: FastifyRequest<{ Params: { section: string; id?: string } }>,
    reply: FastifyReply,
  ) => {
    const { section, id } = request.params;
    if (!known.has(section) || (id !== undefined && !ITEM.test(id)))
      throw new Problem('route-not-found', `GET ${request.url.split('?')[0] ?? ''} does not exist`);
    return page(request, reply);
  };
  app.get(`${base}/:section`, { config: { auth: 'public' }, schema }, handler);
  app.get(`${base}/:section/:id`, { config: { auth: 'public' }, schema }, handler);
}
