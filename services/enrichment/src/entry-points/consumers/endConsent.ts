import type { ApplicationFact } from '@loan/contracts';
import { endConsent, unlinkBackoffMs, unlinkFailed, unlinked } from '../../domain/endConsent/decide';
import type { UseCaseDeps } from '../deps';

type ConsentEnded = Extract<ApplicationFact, { type: 'ConsentEnded' }>;

const message = (error: unknown): string => String((error as Error)?.message ?? error);

/**
 * The end of an account's consent (withdrawn, expired, lapsed): its job stops and forgets the
 * provider's results, its enriched profile is deleted, and the account is unlinked at the
 * provider. Only then is `BankDataScrubbed` (with the consent) announced, which the deletion
 * receipt rests on. An unlink the provider refuses for now is tried again after a backoff, and
 * after a restart (`resume`).
 */
export function createConsentEndHandler(
  deps: Pick<UseCaseDeps, 'writer' | 'jobs' | 'bankData' | 'provider' | 'sealer' | 'logger' | 'metrics'>,
) {
  const { writer, jobs, bankData, provider, logger, metrics } = deps;
  const retries = new Map<string, NodeJS.Timeout>();

  function later(accountId: string, ms: number) {
    if (retries.has(accountId)) return;
    const timer = setTimeout(() => {
      retries.delete(accountId);
      unlink(accountId).catch((error: unknown) => logger.warn({ err: error, accountId }, 'unlink retry failed'));
    }, ms);
    timer.unref();
    retries.set(accountId, timer);
  }

  /** Unlinks the account at the provider if its consent ended and it is not unlinked yet. */
  async function unlink(accountId: string): Promise<void> {
    const stored = await jobs.get(accountId);
    if (!stored?.job.unlinkPending) return;
    const key = deps.sealer.for('client-secrets').open(stored.job.providerKeySealed);
    try {
      const answer = await provider.unlinkAccount(key, stored.job.providerAccountId);
      metrics.providerCalls.inc({ call: 'unlink', outcome: 'ok' });
      await writer.change(accountId, (job, now) => unlinked(job, now));
      logger.info({ accountId, answer }, 'account unlinked at the provider after its consent ended');
    } catch (error) {
      metrics.providerCalls.inc({ call: 'unlink', outcome: 'failed' });
      const { written } = await writer.change(accountId, (job, now) => unlinkFailed(job, message(error), now));
      const failures = written?.consentEnd?.unlinkFailures ?? written?.failures ?? 1;
      logger.warn({ accountId, failures, error: message(error) }, 'unlink at the provider failed; tried again later');
      later(accountId, unlinkBackoffMs(failures));
    }
  }

  async function onConsentEnded(fact: ConsentEnded) {
    const { current } = await writer.change(fact.accountId, (job, now) =>
      job.applicationId === fact.applicationId ? endConsent(job, fact, now) : null,
    );
    if (!current || current.applicationId !== fact.applicationId) {
      logger.warn({ accountId: fact.accountId }, 'consent ended for an account with no enrichment; nothing to erase');
      return;
    }
    // The job is marked first, so that no worker stores a profile after the delete.
    await bankData.deleteAccount(fact.accountId);
    await unlink(fact.accountId);
  }

  return {
    onConsentEnded,
    unlink,
    /** Takes up the unlinks a stop or crash left undone. */
    async resume(): Promise<number> {
      const pending = await jobs.unlinksPending();
      for (const accountId of pending) await unlink(accountId);
      return pending.length;
    },
    stop() {
      for (const timer of retries.values()) clearTimeout(timer);
      retries.clear();
    },
  };
}
export type ConsentEndHandler = ReturnType<typeof createConsentEndHandler>;
