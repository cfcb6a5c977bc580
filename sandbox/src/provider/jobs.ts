import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger';
import { analyzeIncome, personaSpec } from '../personas';
import type { Job, LinkedAccount, ProviderStore } from './store';
import type { WebhookSender } from './webhooks';

export interface JobsOptions {
  store: ProviderStore;
  webhooks: WebhookSender;
  /** How long a job takes. */
  delayMs: number;
  clock: () => Date;
  logger: Logger;
}

export interface Jobs {
  startIncome(account: LinkedAccount, periodMonths: number | undefined): Job;
  startInsights(account: LinkedAccount): Job;
  stop(): void;
}

const newJobId = (): string => randomBytes(12).toString('hex');

/**
 * The provider's asynchronous analyses. A job finishes after the configured delay and
 * announces itself by webhook; for a persona whose jobs never finish, it stays processing.
 */
export function createJobs({ store, webhooks, delayMs, clock, logger }: JobsOptions): Jobs {
  const timers = new Set<NodeJS.Timeout>();
  const log = logger.child({ component: 'jobs' });

  const later = (account: LinkedAccount, job: Job, finish: () => void): void => {
    store.addJob(job);
    if (personaSpec(account.persona).jobsNeverFinish) {
      log.info({ jobId: job.id, kind: job.kind, accountId: account.id }, 'job will never finish (persona)');
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      finish();
      log.info({ jobId: job.id, kind: job.kind, accountId: account.id }, 'job finished');
    }, delayMs);
    timers.add(timer);
  };

  return {
    startIncome: (account, periodMonths) => {
      const job: Job = {
        id: newJobId(),
        kind: 'income',
        accountId: account.id,
        status: 'processing',
        createdAt: clock(),
        periodMonths,
        result: null,
      };
      later(account, job, () => {
        const result = analyzeIncome({
          account: account.data.account,
          transactions: account.data.transactions,
          ...(periodMonths === undefined ? {} : { periodMonths }),
          now: clock(),
        });
        job.result = result;
        job.status = 'finished';
        store.addIncomeRecord(account.id, result);
        webhooks.send(account.id, 'mono.events.account_income', result);
      });
      return job;
    },
    startInsights: (account) => {
      const job: Job = {
        id: newJobId(),
        kind: 'statement_insights',
        accountId: account.id,
        status: 'processing',
        createdAt: clock(),
        result: null,
      };
      later(account, job, () => {
        job.status = 'finished';
        webhooks.send(account.id, 'mono.events.statement_insights', {
          account: account.id,
          jobId: job.id,
          message: 'Statement insights are ready',
        });
      });
      return job;
    },
    stop: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
