/** The operators' part of the service graph: their store, and the provider client when one is configured. */
import type { SecretHasher } from '../auth/secret-hash.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { ApiTokens } from './api-tokens.js';
import { OidcClient } from './oidc-client.js';
import { OperatorService } from './operator-service.js';
import { OperatorStore } from './operator-store.js';
import type { WebSessions } from './sessions.js';

export function createOperators(deps: {
  config: Config;
  db: Db;
  clock: Clock;
  webSessions: WebSessions;
  work: UnitOfWork;
  hasher: SecretHasher;
}): OperatorService {
  const { config } = deps;
  const { oidcIssuer, oidcClientId } = config;
  // Config validation requires the client id with the issuer; both or neither.
  const oidc =
    oidcIssuer === undefined || oidcClientId === undefined
      ? undefined
      : new OidcClient({ ...config, oidcIssuer, oidcClientId });
  const apiTokens = new ApiTokens(deps.db, deps.hasher, deps.clock, deps.work);
  return new OperatorService(
    new OperatorStore(deps.db.kysely),
    deps.webSessions,
    deps.work,
    deps.clock,
    config,
    oidc,
    apiTokens,
  );
}
