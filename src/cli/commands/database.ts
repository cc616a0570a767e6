/** Commands about the database itself: migrations, demo data and the generated admin token. */
import { cliInitiator } from '../../audit/initiator.js';
import { seedDemo } from '../../seed/demo.js';
import { type Command, json, UsageError } from '../command.js';

export const migrate: Command = {
  name: 'migrate',
  summary: 'apply pending database migrations',
  details: 'Applies pending database migrations and exits.',
  needs: 'database',
  async run({ io, engine }) {
    io.err(`database migrated (${engine})`);
    return 0;
  },
};

export const seed: Command = {
  name: 'seed',
  summary: 'load demo data into an empty database',
  details: 'Loads the demo data into an empty database (nothing when clients exist). Prints a JSON summary.',
  needs: 'services',
  async run({ io, services }) {
    const summary = await seedDemo(services, cliInitiator());
    io.err(summary.seeded ? 'demo data seeded' : 'the database already has clients: nothing seeded');
    return json(io, summary);
  },
};

export const adminToken: Command = {
  name: 'admin-token',
  args: '--reset',
  summary: 'replace the admin token and print the new one',
  details: 'Replaces the generated admin token and prints the new one (not when ADMIN_TOKEN is set).',
  needs: 'services',
  printsAdminToken: true,
  async run({ io, values, services, deps }) {
    if (values.reset !== true) throw new UsageError('admin-token: pass --reset to replace the admin token');
    if (deps.config.adminToken !== undefined) {
      io.err('ADMIN_TOKEN is set in the environment and takes precedence: change it there instead');
      return 1;
    }
    io.out(await services.resetAdminToken(cliInitiator()));
    io.err('admin token replaced; running servers refuse the previous one within 5 seconds');
    return 0;
  },
};
