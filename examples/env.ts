/**
 * Shared by the examples: a client from the environment, defaulting to the demo server that
 * `npm start` runs on http://localhost:3000 with its public demo client.
 *
 *   SHELFMARK_URL            main API (default http://localhost:3000)
 *   SHELFMARK_LML_URL        subscription API, when on another host (default: SHELFMARK_URL)
 *   SHELFMARK_CLIENT_ID      (default smc_demo)
 *   SHELFMARK_CLIENT_SECRET  (default the demo secret)
 */
import { pathToFileURL } from 'node:url';
import { ShelfmarkClient } from '@shelfmark/client';

export const DEMO_WEBHOOK_SECRET = 'whsec_c2hlbGZtYXJrLWRlbW8td2ViaG9vay1rZXktMzJieXQ=';

export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): ShelfmarkClient {
  return new ShelfmarkClient({
    baseUrl: env.SHELFMARK_URL ?? 'http://localhost:3000',
    ...(env.SHELFMARK_LML_URL === undefined ? {} : { lmlBaseUrl: env.SHELFMARK_LML_URL }),
    clientId: env.SHELFMARK_CLIENT_ID ?? 'smc_demo',
    clientSecret: env.SHELFMARK_CLIENT_SECRET ?? 'sms_demo_secret_do_not_use_in_production',
  });
}

/** True when this module is the script node was started with (not imported by a test). */
export const isMain = (moduleUrl: string): boolean =>
  process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === moduleUrl;
