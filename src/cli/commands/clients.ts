/**
 * `shelfmark clients …`: API clients. Every `<id>` is either the client id a partner sees and signs
 * in with (e.g. smc_demo) or the internal id (cli_…); both are listed by `shelfmark clients list`.
 */
import { cliInitiator } from '../../audit/initiator.js';
import type { Config } from '../../config.js';
import { Problem } from '../../problems/catalogue.js';
import type { CliServices } from '../command.js';
import { type Command, json, listing, required } from '../command.js';

/** The internal id of the client named by either of its ids. */
async function resolveClient(services: CliServices, given: string | undefined): Promise<string> {
  const id = required(given, 'client id');
  const client = (await services.clients.list()).find((c) => c.id === id || c.clientId === id);
  if (client === undefined)
    throw new Problem(
      'not-found',
      `no client has the id "${id}": give its client id (e.g. smc_demo) or its internal id (cli_…), as \`shelfmark clients list\` shows them`,
    );
  return client.id;
}

/** Where the server is reached: the configured public origin, else the address it listens on. */
export function serverOrigin(config: Config): string {
  if (config.publicBaseUrl !== undefined) return config.publicBaseUrl.replace(/\/$/, '');
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

export const listClients: Command = {
  name: 'clients list',
  args: '[--json]',
  summary: 'list API clients',
  details: 'Lists API clients: a table on a terminal, JSON otherwise or with --json.',
  needs: 'services',
  async run(context) {
    const clients = await context.services.clients.list();
    return listing(
      context,
      clients,
      clients.map((c) => ({ ...c, scopes: c.scopes.join(' ') })),
      ['id', 'name', 'clientId', 'status', 'scopes', 'createdAt'],
    );
  },
};

export const createClient: Command = {
  name: 'clients create',
  args: '<name> [--scopes a,b]',
  summary: 'create a client (its secrets are shown once)',
  details: 'Creates a client and prints its credentials as JSON. The secrets are shown only now.',
  needs: 'services',
  async run({ io, args, values, services }) {
    const name = required(args.join(' '), 'client name');
    const scopes = values.scopes
      ?.split(',')
      .map((scope) => scope.trim())
      .filter((scope) => scope !== '');
    const created = await services.clients.create({ name, scopes }, cliInitiator());
    io.err('client created; its secrets are shown only now');
    return json(io, created);
  },
};

export const resetSecret: Command = {
  name: 'clients reset-secret',
  args: '<id>',
  summary: 'reset a client secret (old secret and tokens stop working)',
  details: 'Resets the client secret; the old secret and every token minted with it stop working at once.',
  needs: 'services',
  async run({ io, args, services }) {
    return json(io, await services.clients.resetSecret(await resolveClient(services, args[0]), cliInitiator()));
  },
};

export const rotateWebhookSecret: Command = {
  name: 'clients rotate-webhook-secret',
  args: '<id>',
  summary: 'rotate a webhook secret (the old one overlaps for a while)',
  details: 'Rotates the webhook secret; the previous one keeps signing during WEBHOOK_SECRET_OVERLAP_SECONDS.',
  needs: 'services',
  async run({ io, args, services }) {
    return json(io, await services.clients.rotateWebhookSecret(await resolveClient(services, args[0]), cliInitiator()));
  },
};

export const revokeClient: Command = {
  name: 'clients revoke',
  args: '<id>',
  summary: 'revoke a client',
  details: 'Revokes a client: its credentials, tokens and portal sessions stop working.',
  needs: 'services',
  async run({ io, args, services }) {
    await services.clients.revoke(await resolveClient(services, args[0]), cliInitiator());
    io.err(`client ${args[0] ?? ''} revoked`);
    return 0;
  },
};

export const portalLink: Command = {
  name: 'clients portal-link',
  args: '<id> [--json]',
  summary: 'one-time partner-portal sign-in link (15 minutes, single use)',
  details:
    "Prints a one-time sign-in link to the client's partner portal, valid 15 minutes, usable once.\n" +
    'The link starts with PUBLIC_BASE_URL when it is set, else with http://HOST:PORT of the configuration.\n' +
    'Send it to the partner over a channel you trust.',
  needs: 'services',
  async run({ io, args, values, services, deps }) {
    const { config } = deps;
    const link = await services.webSessions.createPortalLink(
      await resolveClient(services, args[0]),
      cliInitiator(),
      serverOrigin(config),
    );
    if (values.json === true || io.outTty !== true) return json(io, link);
    io.out(link.url);
    io.err(
      `valid until ${link.expiresAt}, usable once${config.publicBaseUrl === undefined ? '; set PUBLIC_BASE_URL when partners reach the server at another address' : ''}`,
    );
    return 0;
  },
};
