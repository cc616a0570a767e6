/** `shelfmark deliveries …`: the webhook delivery log and re-sending a delivery. */
import { cliInitiator } from '../../audit/initiator.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../delivery/model.js';
import { type Command, json, listing, required, UsageError } from '../command.js';

function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--limit: expected a whole number, got "${raw}"`);
  return Number(raw);
}

/** --status: one of the delivery statuses; anything else is bad usage naming them. */
function statusOf(raw: string | undefined): DeliveryStatus | undefined {
  if (raw === undefined) return undefined;
  const status = DELIVERY_STATUSES.find((known) => known === raw);
  if (status === undefined)
    throw new UsageError(`--status: expected one of ${DELIVERY_STATUSES.join(', ')}; got "${raw}"`);
  return status;
}

export const listDeliveries: Command = {
  name: 'deliveries list',
  args: `[--status ${DELIVERY_STATUSES.join('|')}] [--subscription <id>] [--limit n] [--json]`,
  summary: 'list webhook deliveries, newest first',
  needs: 'services',
  async run(context) {
    const { values, services } = context;
    const page = await services.deliveries.list({
      status: statusOf(values.status),
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
    return json(io, await services.deliveries.retry(required(args[0], 'delivery id'), cliInitiator()));
  },
};
