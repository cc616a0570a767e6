/** Admin: the operators who signed in through the identity provider, and disabling one (admin only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { MAX_PATH_SEGMENT } from '../limits/http-limits.js';
import { OperatorList } from './operator-schemas.js';
import type { OperatorService } from './operator-service.js';

/** OpenID Connect allows a `sub` of up to 255 ASCII characters; the router takes a segment that long. */
const SubParams = Type.Object({
  sub: Type.String({ minLength: 1, maxLength: MAX_PATH_SEGMENT, examples: ['00u1a2b3c4d5e6f7g8h9'] }),
});

export const adminOperatorRoutes: FastifyPluginAsyncTypebox<{ operators: OperatorService }> = async (
  app,
  { operators },
) => {
  const tags = ['admin: operators'];
  app.get(
    '/operators',
    {
      config: { auth: 'admin', role: 'admin' },
      schema: {
        operationId: 'adminListOperators',
        tags,
        summary: 'Operators who signed in through the identity provider, the latest sign-in first',
        description:
          'Everyone who has signed in to the console through OIDC_ISSUER, with their role as of their last sign-in (a role changed at the provider applies at their next one) and whether they are disabled.',
        response: { 200: OperatorList },
      },
    },
    async () => ({ data: await operators.list() }),
  );
  app.post(
    '/operators/:sub/disable',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, problems: ['conflict'], audit: 'operator.disabled' },
      schema: {
        operationId: 'adminDisableOperator',
        tags,
        summary: 'Disable an operator: their sessions end at once on every node, and they cannot sign in',
        description: '409 when an operator tries to disable themselves.',
        params: SubParams,
        response: { 200: OperatorList },
      },
    },
    async (request) => ({ data: await operators.disable(request.params.sub, initiatorOf(request)) }),
  );
  app.post(
    '/operators/:sub/enable',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'operator.enabled' },
      schema: {
        operationId: 'adminEnableOperator',
        tags,
        summary: 'Enable a disabled operator: they may sign in again (with the role the provider gives them)',
        description: 'Answers the operator as it now is; enabling an operator who is not disabled changes nothing.',
        params: SubParams,
        response: { 200: OperatorList },
      },
    },
    async (request) => ({ data: await operators.enable(request.params.sub, initiatorOf(request)) }),
  );
};
