import type { ApplicationStatus } from '@loan/contracts';

/** What can happen to an application (spec section 3). */
export type Trigger =
  | 'resume'
  | 'link_account'
  | 'finalize_linking'
  | 'analyze'
  | 'analysis_completed'
  | 'analysis_failed'
  | 'cleanup_no_link'
  | 'cleanup_no_analyze'
  | 'relink';

/**
 * The transition table of spec section 3: for each status, the triggers it accepts and the
 * status they lead to. Anything absent is refused.
 */
export const TRANSITIONS: Record<ApplicationStatus, Partial<Record<Trigger, ApplicationStatus>>> = {
  PENDING_LINKING: {
    resume: 'PENDING_LINKING',
    link_account: 'LINKED',
    relink: 'PENDING_LINKING',
    cleanup_no_link: 'ABANDONED',
  },
  LINKED: {
    link_account: 'LINKED',
    relink: 'LINKED',
    finalize_linking: 'LINKED',
    analyze: 'PROCESSING',
    cleanup_no_analyze: 'ABANDONED',
  },
  // No re-link while PROCESSING: the analysis in flight scores the accounts as they were
  // enriched when analyze was accepted, and PROCESSING only ends in COMPLETED or FAILED, both
  // terminal for re-linking, so a re-link now could never be analyzed (docs/security.md).
  PROCESSING: {
    analysis_completed: 'COMPLETED',
    analysis_failed: 'FAILED',
  },
  COMPLETED: {},
  FAILED: {},
  ABANDONED: { resume: 'PENDING_LINKING' },
};

/** The status a trigger leads to, or null when the status does not accept it. */
export function transition(from: ApplicationStatus, trigger: Trigger): ApplicationStatus | null {
  return TRANSITIONS[from][trigger] ?? null;
}

/** Statuses in which initiate with the same key is a conflict (spec rule 1). */
export const KEY_IN_USE_STATUSES: readonly ApplicationStatus[] = ['LINKED', 'PROCESSING', 'COMPLETED', 'FAILED'];

/** Statuses terminal for re-linking (spec section 3). */
export const TERMINAL_STATUSES: readonly ApplicationStatus[] = ['COMPLETED', 'FAILED', 'ABANDONED'];
