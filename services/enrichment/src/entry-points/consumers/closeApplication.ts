import { randomUUID } from 'node:crypto';
import { Topics, type ApplicationFact } from '@loan/contracts';
import { withTraceContext, type OutboxEntry } from '@loan/runtime';
import { closeJob } from '../../domain/scrubBankData/decide';
import type { UseCaseDeps } from '../deps';

/** What names a closing: the fact (or the retention deadline) and its application. */
export type Closing = Pick<
  Extract<ApplicationFact, { type: 'ApplicationClosed' }>,
  'factId' | 'clientId' | 'applicationId' | 'accountIds'
>;

/**
 * An application closed: the pending work on its accounts stops. With `scrub` (a no_analyze
 * abandonment, or the end of a decided application's retention) its bank data is deleted too,
 * and `BankDataScrubbed` announced once per closing.
 */
export function createCloseHandler(
  deps: Pick<UseCaseDeps, 'writer' | 'jobs' | 'index' | 'bankData' | 'scrubRelay' | 'clock' | 'logger' | 'metrics'> & {
    /** Unlinks an account at the provider once its job says so (the consent handler's). */
    unlink?: (accountId: string) => Promise<void>;
  },
) {
  const { writer, jobs, index, bankData, clock, logger, metrics } = deps;
  /**
   * With `unlink` (abandoned without analysis: nothing will read the accounts again) each
   * account is also unlinked at the provider, after the scrub is announced.
   */
  return async function onApplicationClosed(fact: Closing, scrub: boolean, unlink = false) {
    // Every closing (each decided application has one) finds its jobs by `_id`: the accounts
    // the fact names, or (a fact from before they travelled on it, a retention deadline) the
    // application's lookup. A scrub, rare, also queries the collection, for jobs written before
    // the lookup existed.
    const candidates = new Set(fact.accountIds ?? (await index.byApplication(fact.applicationId)));
    if (scrub) for (const id of await jobs.idsByApplication(fact.applicationId)) candidates.add(id);
    const accountIds: string[] = [];
    for (const accountId of candidates) {
      const { current, written } = await writer.change(accountId, (job, now) =>
        job.applicationId === fact.applicationId ? closeJob(job, fact, now, scrub, unlink) : null,
      );
      if (current?.applicationId === fact.applicationId) accountIds.push(accountId);
      if (written) metrics.jobs.inc({ outcome: written.scrubbedAt ? 'scrubbed' : 'closed' });
    }
    if (!scrub) return;
    // The jobs are marked first, so that no worker stores a profile after the delete.
    const deleted = await bankData.deleteApplication(fact.applicationId);
    const now = clock.now();
    const id = randomUUID();
    const outbox: OutboxEntry[] = [
      {
        id,
        topic: Topics.enrichmentResults,
        key: fact.applicationId,
        value: {
          type: 'BankDataScrubbed',
          factId: id,
          clientId: fact.clientId,
          applicationId: fact.applicationId,
          at: now.toISOString(),
          accountIds,
        },
        headers: withTraceContext(),
      },
    ];
    await bankData.recordScrub({
      scrubId: fact.factId,
      applicationId: fact.applicationId,
      accountIds,
      at: now,
      outbox,
    });
    await deps.scrubRelay.flush(fact.factId);
    if (unlink && deps.unlink) for (const accountId of accountIds) await deps.unlink(accountId);
    logger.info(
      { applicationId: fact.applicationId, accounts: accountIds.length, profiles: deleted },
      'bank data scrubbed',
    );
  };
}
export type CloseHandler = ReturnType<typeof createCloseHandler>;
