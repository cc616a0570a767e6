/**
 * `shelfmark operators …`: named API tokens for automation, each with an operator role, shown once
 * and kept only as a keyed hash. A token is sent as `Authorization: Bearer smt_…` to the admin API.
 */
import { cliInitiator } from '../../audit/initiator.js';
import { ROLES, type Role } from '../../vocabulary/actor.js';
import { type Command, json, listing, required, UsageError } from '../command.js';

const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

export const createApiToken: Command = {
  name: 'operators token create',
  args: '--name <name> --role viewer|support|admin',
  summary: 'create a named API token with a role (shown once)',
  details:
    'Creates an API token for automation that acts on the admin API with the given role, and prints it as JSON. The token is shown only now; only its hash is kept.',
  needs: 'services',
  async run({ io, values, services }) {
    const name = required(values.name, '--name');
    const role = required(values.role, '--role');
    if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}, got "${role}"`);
    const { token, view } = await services.operators.apiTokens.create(name, role, cliInitiator());
    io.err('API token created; it is shown only now');
    return json(io, { ...view, token });
  },
};

export const listApiTokens: Command = {
  name: 'operators token list',
  args: '[--json]',
  summary: 'list the API tokens (never their secrets)',
  needs: 'services',
  async run(context) {
    const tokens = await context.services.operators.apiTokens.list();
    return listing(
      context,
      tokens,
      tokens.map((token) => ({ ...token })),
      ['id', 'name', 'role', 'status', 'createdAt', 'lastUsedAt'],
    );
  },
};

export const revokeApiToken: Command = {
  name: 'operators token revoke',
  args: '<name>',
  summary: 'revoke an API token (refused from its next request on)',
  needs: 'services',
  async run({ io, args, services }) {
    const name = required(args[0], 'token name');
    await services.operators.apiTokens.revoke(name, cliInitiator());
    io.err(`API token ${name} revoked`);
    return 0;
  },
};
