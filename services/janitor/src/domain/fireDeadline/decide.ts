import type { DeadlinePassed } from '@loan/contracts';
import { type Deadline, type TrackedDeadline, isDue } from '../deadline';

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

/**
 * The application's deadlines once `deadlineId` fired at `now`, or null when it cannot fire:
 * it is not armed (cancelled or fired already, or unknown) or not due yet.
 */
export function fireIn(deadlines: readonly TrackedDeadline[], deadlineId: string, now: Date): TrackedDeadline[] | null {
  const target = deadlines.find((d) => d.deadlineId === deadlineId);
  if (!target || target.status !== 'ARMED' || !isDue(target, now)) return null;
  return deadlines.map((d) => (d === target ? { ...d, status: 'FIRED' as const, firedAt: now } : d));
}
