import type { AccountLinkingProvider } from '@loan/provider';
import type { Logger, PurposeSealer } from '@loan/runtime';
import type { Application } from '../../domain/application';
import type { LinksClosedReason } from '../../domain/linksClosed';

/**
 * Ends an application's widget sessions at the provider once it takes no more accounts, so that
 * the applicant's widget says why instead of linking an account the application would refuse.
 * Best effort, after the change is durable: when the call fails (or the provider has no such
 * operation), a late account is still refused when its webhook arrives (`recordAccountLink`).
 */
export function createLinkCloser(deps: {
  provider: Pick<AccountLinkingProvider, 'closeLinks'>;
  sealer: PurposeSealer;
  logger: Logger;
}) {
  const { provider, sealer, logger } = deps;
  const inFlight = new Set<Promise<void>>();

  function close(state: Application, reason: LinksClosedReason): void {
    const call = (async () => {
      const secretKey = sealer.for('client-secrets').open(state.providerKeySealed);
      const closed = await provider.closeLinks(secretKey, {
        ref: state.applicationId,
        reason,
        before: state.updatedAt,
      });
      if (!closed) logger.debug({ applicationId: state.applicationId }, 'provider cannot close widget sessions');
    })()
      .catch((error: unknown) =>
        logger.warn({ applicationId: state.applicationId, reason, err: error }, 'closing widget sessions failed'),
      )
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  }

  return {
    close,
    /** Waits for the calls under way (at shutdown). */
    async drain(): Promise<void> {
      await Promise.all([...inFlight]);
    },
  };
}
