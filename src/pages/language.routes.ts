/**
 * GET /language/nl and /language/en: the header's NL | EN switch. Remembers the choice in a cookie for a
 * year (every page of the origin reads it, the server-rendered ones too) and sends the browser back to
 * the page it came from (`back`, a path on this origin; the home page otherwise). Hidden from the API
 * document: the API itself always answers in English.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { cookieOptions } from '../http/cookies.js';
import { isLocale, LANGUAGE_COOKIE } from '../i18n/locale.js';
import { Problem } from '../problems/catalogue.js';

const YEAR_SECONDS = 365 * 24 * 3600;

/** A path on this origin ("/dashboard/deliveries?status=failed"); anything else (//host, a scheme, \) is not followed. */
const isLocalPath = (back: string): boolean => back.charAt(0) === '/' && back.charAt(1) !== '/' && !/[\s\\]/.test(back);

export const languageRoutes: FastifyPluginAsync = async (app) => {
  const schema = {
    hide: true,
    params: Type.Object({ locale: Type.String({ maxLength: 8 }) }),
    querystring: Type.Object({ back: Type.Optional(Type.String({ maxLength: 2048 })) }),
  } as const;
  app.get(
    '/language/:locale',
    { config: { auth: 'public' }, schema },
    async (
      request: FastifyRequest<{ Params: { locale: string }; Querystring: { back?: string } }>,
      reply: FastifyReply,
    ) => {
      const { locale } = request.params;
      if (!isLocale(locale)) throw new Problem('not-found', `there is no language ${locale}: nl and en are offered`);
      const back = request.query.back ?? '/';
      void reply.setCookie(LANGUAGE_COOKIE, locale, {
        ...cookieOptions(request, YEAR_SECONDS),
        sameSite: 'lax',
      });
      return reply.header('cache-control', 'no-store').redirect(isLocalPath(back) ? back : '/', 303);
    },
  );
};
