import type { RequestHandler } from 'express';
import { failed } from '../http/envelope';

/** Which of the sandbox's third-party APIs a fault applies to. */
export type FaultTarget = 'provider' | 'bureau';

export type FaultStatus = 500 | 502 | 503;

export interface Faults {
  /** The next `count` calls to the target answer `status`. */
  arm(target: FaultTarget, status: FaultStatus, count: number): void;
  reset(): void;
  /** Consumes one armed fault, returning its status, or null when none is armed. */
  take(target: FaultTarget): FaultStatus | null;
  pending(): Record<FaultTarget, { status: FaultStatus; remaining: number } | null>;
}

export function createFaults(): Faults {
  const armed = new Map<FaultTarget, { status: FaultStatus; remaining: number }>();
  return {
    arm: (target, status, count) => {
      armed.set(target, { status, remaining: count });
    },
    reset: () => armed.clear(),
    take: (target) => {
      const fault = armed.get(target);
      if (!fault) return null;
      fault.remaining -= 1;
      if (fault.remaining <= 0) armed.delete(target);
      return fault.status;
    },
    pending: () => ({ provider: armed.get('provider') ?? null, bureau: armed.get('bureau') ?? null }),
  };
}

/** Answers the armed status instead of handling the call. */
export function faultInjection(faults: Faults, target: FaultTarget, clock: () => Date): RequestHandler {
  return (_req, res, next) => {
    const status = faults.take(target);
    if (status === null) return next();
    res.status(status).json(failed(clock(), `Injected fault: the ${target} answered ${status}`));
  };
}
