/**
 * Demo data for a first start on an empty database, so the README's curl examples work verbatim.
 * The demo client's credentials are fixed and public: never seed demo data in production (SEED=none).
 */

import type { Initiator } from '../audit/initiator.js';
import type { ClientService } from '../auth/client-service.js';
import { seedDemoLml } from '../lml/demo-lml.js';
import type { ListService } from '../lml/list-service.js';
import type { SchoolService } from '../lml/school-service.js';
import { seedDemoOffers } from '../offers/demo-offers.js';
import type { OfferService } from '../offers/service.js';

export { DEMO_EANS, DEMO_QUERY_EANS } from '../offers/demo-offers.js';

export const DEMO_CLIENT = {
  clientId: 'smc_demo',
  clientSecret: 'sms_demo_secret_do_not_use_in_production',
  webhookSecret: `whsec_${Buffer.from('shelfmark-demo-webhook-key-32byt').toString('base64')}`,
} as const;

export interface SeedSummary {
  seeded: boolean;
  offers: number;
  schools: number;
  lists: number;
}

/** The services the demo data is created through, so it obeys the same rules as the API. */
export interface DemoSeedServices {
  clients: ClientService;
  offers: OfferService;
  schools: SchoolService;
  lists: ListService;
}

/** Seeds only when no client exists yet, so restarts and other nodes never seed twice; audited as `by`. */
export async function seedDemo(services: DemoSeedServices, by: Initiator): Promise<SeedSummary> {
  const summary: SeedSummary = { seeded: false, offers: 0, schools: 0, lists: 0 };
  if ((await services.clients.count()) > 0) return summary;
  await services.clients.create({ name: 'Demo shop', fixedCredentials: DEMO_CLIENT }, by);
  summary.offers = await seedDemoOffers(services, by);
  const lml = await seedDemoLml(services, by);
  summary.schools = lml.schools;
  summary.lists = lml.lists;
  summary.seeded = true;
  return summary;
}
