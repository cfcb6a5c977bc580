import type { Application } from './application';
import { transition } from './stateMachine';

/** Why an application stopped taking accounts: what the provider's widget tells the applicant. */
export type LinksClosedReason = 'linking_finalized' | 'decided' | 'failed' | 'abandoned';

const TERMINAL: Partial<Record<Application['status'], LinksClosedReason>> = {
  COMPLETED: 'decided',
  FAILED: 'failed',
  ABANDONED: 'abandoned',
};

/** Whether a newly linked account would be recorded (`recordAccountLink`'s own test). */
export const acceptsLinks = (state: Pick<Application, 'status' | 'linkingLocked'>): boolean =>
  transition(state.status, 'link_account') !== null && !state.linkingLocked;

/**
 * The change from `before` to `after` that ends the application's widget sessions, or null:
 * new links end with finalize-linking (re-links go on), every link with a terminal status.
 */
export function linksClosedBy(
  before: Pick<Application, 'status' | 'linkingLocked'>,
  after: Pick<Application, 'status' | 'linkingLocked'>,
): LinksClosedReason | null {
  const terminal = TERMINAL[after.status];
  if (terminal) return TERMINAL[before.status] ? null : terminal;
  return acceptsLinks(before) && !acceptsLinks(after) ? 'linking_finalized' : null;
}
