/** Every CLI command, in the order the usage text lists them. */
import type { Command } from '../command.js';
import { auditVerify } from './audit.js';
import { backup } from './backup.js';
import { createClient, listClients, portalLink, resetSecret, revokeClient, rotateWebhookSecret } from './clients.js';
import { adminToken, migrate, seed } from './database.js';
import { listDeliveries, retryDelivery } from './deliveries.js';
import { importLists, importOffers } from './imports.js';
import { createApiToken, listApiTokens, revokeApiToken } from './operators.js';
import { prune } from './prune.js';
import { serve } from './serve.js';

export const COMMANDS: readonly Command[] = [
  serve,
  migrate,
  seed,
  listClients,
  createClient,
  resetSecret,
  rotateWebhookSecret,
  revokeClient,
  portalLink,
  importOffers,
  importLists,
  adminToken,
  listDeliveries,
  retryDelivery,
  backup,
  prune,
  auditVerify,
  createApiToken,
  listApiTokens,
  revokeApiToken,
];
