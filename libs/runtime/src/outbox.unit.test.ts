import { randomUUID } from 'node:crypto';
import { Topics } from '@loan/contracts';
import { FACT_TYPE_HEADER } from '@loan/contracts';
import { toOutboxEntries } from './outbox';

describe('outbox entries', () => {
  const owner = { clientId: 'client-1', applicationId: randomUUID() };
  const now = new Date('2026-11-24T10:00:00.000Z');

  it('when a decision emits a fact, then its entry names the fact type in a header beside the given ones', () => {
    const [entry] = toOutboxEntries(
      owner,
      [{ kind: 'fact', topic: Topics.applicationFacts, fact: { type: 'LinkingFinalized', applicantId: randomUUID() } }],
      now,
      { 'x-correlation-id': 'corr-1' },
    );
    expect(entry!.headers).toEqual({ 'x-correlation-id': 'corr-1', [FACT_TYPE_HEADER]: 'LinkingFinalized' });
    expect(entry!.value).toMatchObject({
      type: 'LinkingFinalized',
      factId: entry!.id,
      applicationId: owner.applicationId,
    });
  });

  it('when a decision emits a public event, then its entry carries only the given headers', () => {
    const [entry] = toOutboxEntries(
      owner,
      [
        {
          kind: 'event',
          event: 'account.linked',
          data: {
            applicationId: owner.applicationId,
            applicantId: randomUUID(),
            accountId: randomUUID(),
            institution: 'GTBank',
            accountNumber: '0123456789',
          },
        },
      ],
      now,
      {
        'x-correlation-id': 'corr-2',
      },
    );
    expect(entry!.headers).toEqual({ 'x-correlation-id': 'corr-2' });
  });
});
