import type { DeadlinePassed } from '@loan/contracts';
import { type Deadline, isDue } from '../deadline';

/**
 * The message that tells the owner a deadline passed, or null while it is not due yet. The
 * janitor does not judge whether the deadline still matters: the owner compares `since` with
 * its own state and ignores a stale one.
 */
export function fireDeadline(deadline: Deadline, now: Date): DeadlinePassed | null {
  if (!isDue(deadline, now)) return null;
  return {
    deadlineId: deadline.deadlineId,
    kind: deadline.kind,
    clientId: deadline.clientId,
    applicationId: deadline.applicationId,
    accountId: deadline.accountId,
    attempt: deadline.attempt,
    since: deadline.since,
    dueAt: deadline.dueAt.toISOString(),
    firedAt: now.toISOString(),
  };
}
