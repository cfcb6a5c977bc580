import type { AccountLinkingProvider } from '@loan/provider';
import type { Clock, Logger, OutboxRelay, PurposeSealer } from '@loan/runtime';
import type { AccountIndex } from '../data-access/accountIndex';
import type { BankDataRepository } from '../data-access/bankDataRepository';
import type { DueSchedule } from '../data-access/dueSchedule';
import type { JobRepository } from '../data-access/jobRepository';
import type { JobWriter } from '../data-access/jobWriter';
import type { UnsavedProgress } from '../data-access/unsavedProgress';
import type { Pacing } from '../domain/advanceEnrichment/decide';
import type { EnrichmentMetrics } from '../metrics';

/**
 * What the use cases of the enrichment service are built from, the consumers' and the
 * worker's alike; each takes the part it needs. Every use case loads the account's job, takes
 * a pure decision, writes the job with its outbox in one document write and publishes
 * (`writer`). Provider calls happen outside the decisions; their answers are applied to the
 * freshest state.
 */
export interface UseCaseDeps {
  writer: JobWriter;
  jobs: JobRepository;
  /** Provider account -> jobs and application -> jobs, by `_id`. */
  index: AccountIndex;
  /** When the jobs this process knows of are next due (the poll loop reads it). */
  schedule: DueSchedule;
  /** Provider announcements and results this process holds and has not written. */
  progress: UnsavedProgress;
  bankData: BankDataRepository;
  scrubRelay: Pick<OutboxRelay, 'flush'>;
  provider: AccountLinkingProvider;
  sealer: PurposeSealer;
  clock: Clock;
  logger: Logger;
  metrics: EnrichmentMetrics;
  pacing: Pacing;
  leaseMs: number;
  incomePeriodMonths: number;
  /** Asks for work on an account soon (the worker). */
  kick: (accountId: string) => void;
}

/** When a claim taken at `now` runs out. */
export const leaseFrom = (leaseMs: number) => (now: Date) => new Date(now.getTime() + leaseMs);
