/**
 * Why the gateway refuses what it was asked, said before any protocol is chosen: the HTTP edge
 * (`entry-points/http/errors.ts`) gives each code its status.
 * - `INVALID`: what was sent breaks a rule of its own (a password too short, a webhook URL the
 *   notifier would refuse).
 * - `UNAUTHENTICATED`: a credential is missing or wrong.
 * - `FORBIDDEN`: the caller is known and may not do this.
 * - `NOT_FOUND`: what the request names does not exist (for this caller).
 * - `CONFLICT`: the request clashes with what is stored (a concurrent change, a duplicate).
 * - `TOO_MANY_ATTEMPTS`: an account waits after failed sign-ins.
 */
export type RefusalCode = 'INVALID' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT' | 'TOO_MANY_ATTEMPTS';

/** An expected failure of the gateway's own rules, thrown by its domain and data-access code. */
export class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** When the same request may be tried again (TOO_MANY_ATTEMPTS). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}
