/**
 * buildApp(deps) assembles the HTTP application: plugins, the route table, and the single place
 * where errors become RFC 9457 problem documents. It never listens; server.ts and tests do.
 */
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { buildSharedSerializer } from '../http/compiled-schemas.js';
import { registerHttpFeatures } from '../http/index.js';
import { buildValidatorPerPart, type FastifyValidatorFactory } from '../http/validation.js';
import { clientErrorHandler, MAX_PATH_SEGMENT, TOKEN_FORM_LIMIT_BYTES } from '../limits/http-limits.js';
import { AccessLog } from '../observability/access-log.js';
import { instrumentApp } from '../observability/instrument.js';
import { logDestination, loggerOptions } from '../observability/logging.js';
import { requestLogger } from '../observability/request-logger.js';
import { documentObject } from '../openapi/document.js';
import { documentRoute } from '../openapi/operations.js';
import { Problem, problemBody } from '../problems/catalogue.js';
import { toProblem } from '../problems/to-problem.js';
import { routeGuards } from './route-guards.js';
import { registerRoutes } from './routes.js';
import { createServices, type Deps, type Services } from './services.js';

export interface AppOptions {
  /** A pino logger or `false`; defaults to the LOG_LEVEL of the config. */
  logger?: FastifyBaseLogger | boolean;
  /** Where the configured logger writes (stdout by default); tests read the lines from here. */
  logStream?: NodeJS.WritableStream;
}

/** What buildApp takes: the injected dependencies and, optionally, the service graph built from them. */
export interface AppDeps extends Deps {
  /** The services the routes call; built from the other dependencies when absent. */
  services?: Services;
}

/** The HTTP application. The service graph is not decorated onto it: its composition root keeps that. */
export type App = FastifyInstance;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<App> {
  const services = deps.services ?? (await createServices(deps));
  const logger =
    options.logger === undefined
      ? {
          ...loggerOptions(deps.config.logLevel),
          stream:
            options.logStream ?? (deps.config.logLevel === 'silent' ? undefined : logDestination(services.metrics)),
        }
      : options.logger;
  const app = Fastify({
    ...(typeof logger === 'object' && 'info' in logger ? { loggerInstance: logger } : { logger }),
    bodyLimit: deps.config.bodyLimitBytes,
    // Node's parser answers 431 past this many bytes of request line + headers (see limits/http-limits.ts).
    http: { maxHeaderSize: deps.config.maxHeaderBytes },
    clientErrorHandler: clientErrorHandler(deps.config.maxHeaderBytes),
    // Raised by the router before any hook runs; rendered as problems like every other error.
    frameworkErrors: (error, request, reply) => {
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new Problem('uri-too-long', `a path segment is longer than ${MAX_PATH_SEGMENT} characters`)
          : error.code === 'FST_ERR_BAD_URL'
            ? new Problem('malformed-request', 'the URL is not valid percent-encoded UTF-8')
            : toProblem(error);
      // The option is typed generically over every route's reply; this reply answers no route.
      const raw = reply as unknown as FastifyReply;
      void raw
        .code(problem.status)
        .headers(problem.headers)
        .header('x-request-id', request.id)
        .type('application/problem+json');
      void raw.send(problemBody(problem, request.id));
    },
    // X-Forwarded-* count only from configured proxies (issuer, request.ip); nobody else can spoof them.
    ...(deps.config.trustedProxies.length > 0 ? { trustProxy: [...deps.config.trustedProxies] } : {}),
    logController: new AccessLog(deps.config.logRequests),
    // Each request's child logger is made when it first logs a line (observability/request-logger.ts).
    childLoggerFactory: requestLogger,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    schemaController: {
      compilersFactory: {
        buildValidator: buildValidatorPerPart as unknown as FastifyValidatorFactory,
        buildSerializer: buildSharedSerializer,
      },
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_SEGMENT },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The offers read model follows the change log while the app lives (PostgreSQL: NOTIFY wakes it).
  app.addHook('onReady', () => services.offers.readModel.start(deps.db.listen?.bind(deps.db)));
  app.addHook('onClose', () => services.offers.readModel.stop());
  // Test pings and "Retry now" are sent from here: their failures are logged with the app's lines.
  services.deliveries.logManualAttemptsTo(app.log);
  app.addHook('onClose', () => services.deliveries.close());
  // Before any plugin adds routes: the route catalogue, OpenAPI security defaults and HTTP metrics see them all.
  instrumentApp(app, services.metrics);
  app.decorateRequest('principal', null);
  const maxUrlLength = deps.config.maxUrlLength;
  // Callback style: an async hook would cost a promise on every request.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    const url = request.raw.url ?? '';
    if (url.length > maxUrlLength) {
      done(new Problem('uri-too-long', `the URL has ${url.length} characters; at most ${maxUrlLength} are accepted`));
      return;
    }
    // NUL is never part of a valid identifier or parameter, and PostgreSQL cannot store it in text.
    if (url.includes('%00')) {
      done(new Problem('malformed-request', 'the URL may not contain NUL characters (%00)'));
      return;
    }
    done();
  });

  // The default JSON parser, refusing NUL in strings: PostgreSQL cannot store it and no field needs it.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.includes('\\u0000')) {
      done(new Problem('malformed-body', 'JSON strings may not contain NUL characters (\\u0000)'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  await registerHttpFeatures(app, deps, routeGuards(services));
  await app.register(formbody, { bodyLimit: TOKEN_FORM_LIMIT_BYTES });
  await app.register(swagger, {
    transform: ({ schema, url, route }) => ({ schema: documentRoute(schema, route) ?? schema, url }),
    transformObject: (built) => ('openapiObject' in built ? documentObject(built.openapiObject) : built.swaggerObject),
    // Shared schemas appear under their $id (e.g. #/components/schemas/Offer) instead of def-N.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Shelfmark: Offer and Subscription API',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'The operator of this Shelfmark instance' },
        description:
          'School-book offers by EAN, learning-material lists (LML) and signed webhooks. ' +
          'Obtain a token at `/api/auth/token`, then send `Authorization: Bearer <token>`. Expired tokens answer 403. ' +
          'The integrator API comes first; the operator API (admin token) follows under the `admin:` sections.',
      },
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic', description: 'clientId:clientSecret' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
        },
      },
    },
  });

  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.code(problem.status).headers(problem.headers).type('application/problem+json');
    return problemBody(problem, request.id);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).type('application/problem+json');
    return problemBody(
      new Problem('route-not-found', `${request.method} ${request.url.split('?')[0] ?? ''} does not exist`),
      request.id,
    );
  });

  await registerRoutes(app, services, deps);
  return app as unknown as App;
}
