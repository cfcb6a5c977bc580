import type { DeadlinePassed, PublicEventRecord } from '@loan/contracts';
import type { InboundMessage, Logger } from '@loan/runtime';
import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import { maskAccountNumber } from '../../domain/scrubBodies/maskAccountNumber';

/**
 * When an application's bank data must go, the webhook bodies kept in the delivery log lose
 * their account numbers too: after a `no_analyze` abandonment (seen on `loan.events.v1`) and when
 * the retention period of a decided application ends (`bank_data_retention` on the janitor's
 * deadlines). Delivery metadata (event, status, attempts) stays. Scrubbing twice changes nothing.
 */
export function createScrubBodiesHandlers(deps: { repo: Pick<DeliveryRepository, 'scrubBodies'>; logger: Logger }) {
  async function scrub(applicationId: string, why: string) {
    const scrubbed = await deps.repo.scrubBodies(applicationId, maskAccountNumber);
    if (scrubbed > 0) deps.logger.info({ applicationId, scrubbed, why }, 'webhook bodies scrubbed');
  }
  return {
    async onEvent(message: InboundMessage): Promise<void> {
      const record = message.value as PublicEventRecord;
      if (record.event === 'application.abandoned' && record.data.reason === 'no_analyze')
        await scrub(record.applicationId, 'no_analyze');
    },
    async onDeadline(message: InboundMessage): Promise<void> {
      const deadline = message.value as DeadlinePassed;
      if (deadline.kind === 'bank_data_retention') await scrub(deadline.applicationId, 'bank_data_retention');
    },
  };
}
