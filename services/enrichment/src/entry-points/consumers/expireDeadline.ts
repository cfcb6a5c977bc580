import type { DeadlinePassed } from '@loan/contracts';
import { expireJob } from '../../domain/expireEnrichment/decide';
import type { UseCaseDeps } from '../deps';
import type { CloseHandler } from './closeApplication';

/**
 * A deadline the janitor announces: the enrichment timeout fails an account still pending on
 * the attempt it was set for; the end of the bank data's retention scrubs the application.
 */
export function createDeadlineHandler(
  deps: Pick<UseCaseDeps, 'writer' | 'logger' | 'metrics'> & { onApplicationClosed: CloseHandler },
) {
  const { writer, logger, metrics, onApplicationClosed } = deps;
  return async function onDeadline(deadline: DeadlinePassed) {
    if (deadline.kind === 'bank_data_retention') {
      // The decided application's bank data has been kept long enough: scrubbed as after a
      // no_analyze abandonment (scoring follows BankDataScrubbed). The deadline id makes a
      // redelivered deadline a no-op.
      await onApplicationClosed(
        { factId: deadline.deadlineId, clientId: deadline.clientId, applicationId: deadline.applicationId },
        true,
      );
      return;
    }
    if (deadline.kind !== 'enrichment_timeout' || !deadline.accountId) return;
    const failed = await writer.mutate(deadline.accountId, (job, now) => expireJob(job, deadline, now));
    if (!failed) return;
    metrics.jobs.inc({ outcome: 'timed_out' });
    logger.warn({ accountId: failed.accountId, attempt: failed.attempt }, 'enrichment timed out');
  };
}
