/** Admin: the storage view (rows and oldest row per bounded table, database size, retention, last prune). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StorageSchema } from './schemas.js';
import type { StorageService } from './storage.js';

export interface AdminStorageRoutesOptions {
  storage: StorageService;
}

export const adminStorageRoutes: FastifyPluginAsyncTypebox<AdminStorageRoutesOptions> = async (app, { storage }) => {
  app.get(
    '/storage',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'getAdminStorage',
        tags: ['admin: operations'],
        summary: 'Rows and the oldest row per table, the database size, the retention in force and the last prune',
        description:
          'Row counts are exact on SQLite (a scan: about 50 ms per million rows) and estimates on PostgreSQL for tables of 100,000 rows and more (`rowsExact`). See docs/operating/retention.md.',
        response: { 200: StorageSchema },
      },
    },
    () => storage.view(),
  );
};
