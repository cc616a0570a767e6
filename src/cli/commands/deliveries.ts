/** `shelfmark deliveries …`: the webhook delivery log and re-sending a delivery. */
import { type Command, json, listing, required, UsageError } from '../command.js';

function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--limit: expected a whole number, got "${raw}"`);
  return Number(raw);
}

export const listDeliveries: Command = {
  name: 'deliveries list',
  args: '[--status pending|succeeded|failed] [--subscription <id>] [--limit n] [--json]',
  summary: 'list webhook deliveries, newest first',
  needs: 'services',
  async run(context) {
    const { values, services } = context;
    const page = await services.deliveries.list({
      status: values.status,
      subscriptionId: values.subscription,
      limit: limitOf(values.limit),
    });
    return listing(
      context,
      page,
      page.data.map((d) => ({ ...d })),
      ['id', 'subscriptionId', 'event', 'status', 'attemptCount', 'lastStatusCode', 'createdAt'],
    );
  },
};

export const retryDelivery: Command = {
  name: 'deliveries retry',
  args: '<id>',
  summary: 're-queue a finished delivery now',
  needs: 'services',
  async run({ io, args, services }) {
    return json(io, await services.deliveries.retry(required(args[0], 'delivery id')));
  },
};
