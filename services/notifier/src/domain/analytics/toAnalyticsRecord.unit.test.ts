import { randomUUID } from 'node:crypto';
import { AnalyticsRecord, buildEvent } from '@loan/contracts';
import { toAnalyticsRecord } from './toAnalyticsRecord';

const pseudonym = (kind: string, id: string) => `${kind}#${id.length}`;

describe('the analysts\u2019 record of a public event', () => {
  it('when an account is linked, then the record has pseudonyms and the bank, never the account number or the applicant', () => {
    const ids = { applicationId: randomUUID(), applicantId: randomUUID(), accountId: randomUUID() };
    const event = buildEvent({
      id: randomUUID(),
      event: 'account.linked',
      clientId: 'client-a',
      applicationId: ids.applicationId,
      data: { ...ids, institution: 'GTBank', accountNumber: '0123456785' },
      at: new Date('2026-11-24T10:00:00.000Z'),
    });
    const record = AnalyticsRecord.parse(toAnalyticsRecord(event, pseudonym));
    expect(record).toEqual({
      id: event.id,
      event: 'account.linked',
      at: '2026-11-24T10:00:00.000Z',
      lender: 'lender#8',
      application: 'application#36',
      account: 'account#36',
      institution: 'GTBank',
      accountCount: null,
      reason: null,
      decision: null,
    });
    const raw = JSON.stringify(record);
    for (const secret of ['0123456785', ids.applicationId, ids.applicantId, ids.accountId, 'client-a']) expect(raw).not.toContain(secret);
  });
});
