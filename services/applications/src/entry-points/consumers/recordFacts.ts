import { randomUUID } from 'node:crypto';
import type { DeadlinePassed, EnrichmentResult, ProviderCallback, ScoringResult } from '@loan/contracts';
import type { AccountLinkingProvider } from '@loan/provider';
import { ServiceError, continueAfter, type InboundMessage, type Logger, type PurposeSealer } from '@loan/runtime';
import type { ApplicationRepository } from '../../data-access/applicationRepository';
import type { ApplicationWriter } from '../../data-access/applicationWriter';
import type { ConsentTerms } from '../../domain/consent/decide';
import { expireDeadline } from '../../domain/expireDeadline/decide';
import { recordAccountLink } from '../../domain/recordAccountLink/decide';
import { recordEnrichment } from '../../domain/recordEnrichment/decide';
import { recordScoring } from '../../domain/recordScoring/decide';
import { recordRetentionEnded } from '../../domain/retainRecords/decide';

/**
 * What the other services report about an application, turned into its state changes and
 * events: accounts the provider linked, enrichment and scoring results, passed deadlines.
 */
export function createFactHandlers(deps: {
  writer: ApplicationWriter;
  repo: ApplicationRepository;
  provider: AccountLinkingProvider;
  sealer: PurposeSealer;
  logger: Logger;
  consentTerms: ConsentTerms;
}) {
  const { writer, repo, provider, sealer, logger, consentTerms } = deps;

  /**
   * Applies a decision; the handler ends once the change is durable, and its message's offset
   * waits for the publication of the change's outbox (a failed one is the relay's to retry).
   */
  async function apply(
    message: InboundMessage,
    ...[applicationId, decide, correlationId]: Parameters<ApplicationWriter['mutate']>
  ) {
    const publishing: Promise<void>[] = [];
    await writer.mutate(applicationId, decide, correlationId, publishing);
    if (publishing.length > 0) await continueAfter(message, Promise.all(publishing));
  }

  async function onProviderCallback(message: InboundMessage) {
    const callback = message.value as ProviderCallback;
    if (callback.kind !== 'account_connected' || !callback.ref) return;
    // The state this process last wrote will do for the checks below: a link another replica
    // recorded since is seen by the decision, taken again on a fresh read when the write
    // misses. Only a refusal to go on is confirmed on a fresh read first.
    let stored = await writer.current(callback.ref);
    const linked = (s: NonNullable<typeof stored>) =>
      s.state.accounts.some((a) => a.providerAccountId === callback.providerAccountId);
    if (stored && linked(stored)) stored = await repo.get(callback.ref);
    if (!stored) {
      logger.warn({ ref: callback.ref }, 'provider linked an account for an unknown application; ignored');
      return;
    }
    if (callback.clientId && callback.clientId !== stored.state.clientId) {
      // Verified with one lender's own provider secret, about another lender's application.
      logger.warn(
        { ref: callback.ref, clientId: callback.clientId },
        "provider callback about another client's application; ignored",
      );
      return;
    }
    if (linked(stored)) return;
    const account = await provider.getAccount(
      sealer.for('client-secrets').open(stored.state.providerKeySealed),
      callback.providerAccountId,
    );
    const accountId = randomUUID();
    await apply(
      message,
      callback.ref,
      (state, now) => {
        const outcome = recordAccountLink(state, {
          callbackId: callback.callbackId,
          accountId,
          account,
          now,
          consentTerms,
        });
        if (outcome.kind === 'duplicate') return null;
        if (outcome.kind === 'refused') {
          logger.warn(
            { applicationId: state.applicationId, providerAccountId: account.id, reason: outcome.reason },
            'account link refused',
          );
          return { state: outcome.state, effects: [] };
        }
        return { state: outcome.state, effects: outcome.effects };
      },
      message.headers['x-correlation-id'],
    );
  }

  async function onEnrichmentResult(message: InboundMessage) {
    const result = message.value as EnrichmentResult;
    await apply(message, result.applicationId, (state, now) => recordEnrichment(state, result, now, consentTerms));
  }

  async function onScoringResult(message: InboundMessage) {
    const result = message.value as ScoringResult;
    await apply(message, result.applicationId, (state, now) => recordScoring(state, result, now));
  }

  async function onDeadline(message: InboundMessage) {
    const deadline = message.value as DeadlinePassed;
    if (deadline.kind === 'enrichment_timeout') return;
    if (deadline.kind === 'record_retention') return purgeRecord(deadline);
    await apply(message, deadline.applicationId, (state, now) => expireDeadline(state, deadline, now));
  }

  /**
   * The lender's retention period of an ended application's records passed: the application
   * goes, with its applicant, accounts, decision, offer, review and contest. Nothing is
   * published (nothing personal, nothing for the lender: its own copy is its to keep).
   */
  async function purgeRecord(deadline: DeadlinePassed) {
    await writer.locked(deadline.applicationId, async () => {
      const stored = await repo.get(deadline.applicationId);
      if (!stored || !recordRetentionEnded(stored.state, deadline)) return;
      if (!(await repo.remove(deadline.applicationId, stored.rev))) {
        // Changed meanwhile, or its last events are still to be published: taken again.
        throw new ServiceError(`Application ${deadline.applicationId} is not ready to purge yet`, { retriable: true });
      }
      writer.forget(deadline.applicationId);
      logger.info(
        { applicationId: deadline.applicationId, clientId: deadline.clientId, retainedUntil: deadline.dueAt },
        'application records purged at the end of their retention period',
      );
    });
  }

  return { onProviderCallback, onEnrichmentResult, onScoringResult, onDeadline };
}
