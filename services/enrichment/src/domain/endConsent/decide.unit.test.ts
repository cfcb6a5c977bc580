import { randomUUID } from 'node:crypto';
import type { ApplicationFact } from '@loan/contracts';
import { closeJob } from '../scrubBankData/decide';
import { openJob } from '../startEnrichment/decide';
import { endConsent, unlinkBackoffMs, unlinkFailed, unlinked } from './decide';

const t0 = new Date('2026-11-01T08:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const applicationId = randomUUID();
const accountId = randomUUID();
const consentId = randomUUID();

const job = () =>
  openJob(
    null,
    {
      type: 'AccountLinked',
      factId: randomUUID(),
      clientId: 'client-a',
      applicationId,
      at: t0.toISOString(),
      applicantId: randomUUID(),
      accountId,
      providerAccountId: 'mono-acc-1',
      institution: 'GTBank',
      accountNumber: '0123456785',
      providerKey: 'v1.aaa.bbb.ccc',
    },
    { now: t0, leaseUntil: later(120_000) },
  )!;

const ended: Extract<ApplicationFact, { type: 'ConsentEnded' }> = {
  type: 'ConsentEnded',
  factId: randomUUID(),
  clientId: 'client-a',
  applicationId,
  at: later(1000).toISOString(),
  accountId,
  consentId,
  reason: 'WITHDRAWN',
  endedAt: later(1000).toISOString(),
};

describe("the end of an account's consent, in enrichment", () => {
  it('when consent ends, then the job stops, forgets the account number and the provider’s results, and waits to be unlinked; once only', () => {
    const stopped = endConsent(job(), ended, later(1000))!;
    expect(stopped).toMatchObject({
      closedAt: later(1000),
      scrubbedAt: later(1000),
      nextTryAt: null,
      accountNumber: null,
      unlinkPending: true,
      consentEnd: { consentId, reason: 'WITHDRAWN', unlinkedAt: null },
    });
    expect(stopped.income.result).toBeNull();
    expect(endConsent(stopped, ended, later(2000))).toBeNull();
  });

  it('when the provider unlinks it, then BankDataScrubbed names the consent and when; a failure before is counted and backs off', () => {
    const stopped = endConsent(job(), ended, later(1000))!;
    const failed = unlinkFailed(stopped, 'provider answered 503', later(1500))!;
    expect(failed.consentEnd).toMatchObject({ unlinkFailures: 1, lastUnlinkError: 'provider answered 503' });
    expect([1, 2, 3, 20].map(unlinkBackoffMs)).toEqual([5_000, 10_000, 20_000, 600_000]);
    const done = unlinked(failed, later(2000))!;
    expect(done.job).toMatchObject({ unlinkPending: false, consentEnd: { unlinkedAt: later(2000).toISOString() } });
    expect(done.effects).toEqual([
      {
        kind: 'result',
        result: {
          type: 'BankDataScrubbed',
          accountIds: [accountId],
          consent: { accountId, consentId, unlinkedAt: later(2000).toISOString() },
        },
      },
    ]);
    expect(unlinked(done.job, later(3000))).toBeNull();
  });

  it('when an application is abandoned without analysis, then its scrubbed job is also to be unlinked, and its unlinking announces nothing more', () => {
    const abandoned = closeJob(job(), { factId: randomUUID() }, later(1000), true, true)!;
    expect(abandoned).toMatchObject({ scrubbedAt: later(1000), unlinkPending: true });
    expect(closeJob(job(), { factId: randomUUID() }, later(1000), true)!.unlinkPending).toBeFalsy();
    expect(unlinked(abandoned, later(2000))).toEqual({
      job: expect.objectContaining({ unlinkPending: false }),
      effects: [],
    });
  });
});
