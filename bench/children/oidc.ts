/**
 * Peer for the token endpoint: node-oidc-provider with the client_credentials grant,
 * client_secret_basic, and JWT access tokens signed ES256 (the algorithm Shelfmark signs with),
 * through a resource indicator so the access token is a self-contained JWT like Shelfmark's.
 * Token endpoint: POST /token. Argument: JSON {port, clientId, clientSecret}.
 */
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const args = JSON.parse(process.argv[2] ?? '{}') as { port: number; clientId: string; clientSecret: string };
const AUDIENCE = 'urn:shelfmark:bench';
const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' };

const provider = new Provider(`http://127.0.0.1:${args.port}`, {
  clients: [
    {
      client_id: args.clientId,
      client_secret: args.clientSecret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'offers:read',
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [jwk] },
  scopes: ['offers:read'],
  ttl: { ClientCredentials: 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => AUDIENCE,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'offers:read',
        audience: AUDIENCE,
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
const server = provider.listen(args.port, '127.0.0.1', () =>
  process.stdout.write(`READY ${JSON.stringify({ port: args.port })}\n`),
);
const stop = (): void => void server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
