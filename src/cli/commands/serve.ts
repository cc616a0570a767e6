/** `shelfmark serve`: the HTTP API and/or the delivery worker, as `npm start` runs them. */
import { type Command, UsageError } from '../command.js';

export const serve: Command = {
  name: 'serve',
  args: '[--role api|worker|all]',
  summary: 'run the HTTP API and/or the delivery worker',
  details: 'Runs the HTTP API and/or the webhook delivery worker (ROLE, default all).',
  needs: 'nothing',
  async run({ values, startServer }) {
    const role = values.role ?? undefined;
    if (role !== undefined && role !== 'api' && role !== 'worker' && role !== 'all')
      throw new UsageError(`--role: expected api, worker or all, got "${role}"`);
    await startServer(role === undefined ? [] : ['--role', role]);
    return 'running';
  },
};
