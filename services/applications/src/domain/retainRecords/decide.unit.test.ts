import { randomUUID } from 'node:crypto';
import type { DeadlinePassed } from '@loan/contracts';
import { type Application, type Effect, fact } from '../application';
import { openApplication } from '../initiateApplication/decide';
import { recordRetentionEnded, retainedUntilOf, withRetention } from './decide';

const t0 = new Date('2026-11-01T08:00:00.000Z');
const DAY = 86_400_000;

function opened(): Application {
  const outcome = openApplication({
    applicationId: randomUUID(),
    applicantId: randomUUID(),
    clientId: 'client-a',
    request: {
      firstName: 'Adaeze',
      lastName: 'Okafor',
      email: 'ada@example.com',
      amount: 500_000,
      tenor: 12,
      interestRate: 5,
      idempotencyKey: randomUUID(),
    },
    applicant: { firstName: 's', lastName: 's', email: 's', phone: null, bvnSealed: null },
    providerKeySealed: 'sealed-key',
    widgetUrl: 'http://sandbox/widget/1',
    now: t0,
  });
  if (!outcome.ok) throw new Error('open failed');
  return outcome.state;
}

const closing = (state: Application, status: Application['status']): { state: Application; effects: Effect[] } => ({
  state: { ...state, status },
  effects: [fact({ type: 'ApplicationClosed', applicantId: state.applicantId, status, abandonReason: null })],
});

const deadlineFor = (state: Application, dueAt: string): DeadlinePassed => ({
  deadlineId: `record_retention:${state.applicationId}:${t0.toISOString()}`,
  kind: 'record_retention',
  clientId: state.clientId,
  applicationId: state.applicationId,
  accountId: null,
  attempt: null,
  since: t0.toISOString(),
  dueAt,
  firedAt: dueAt,
});

describe("the retention of an ended application's records", () => {
  it('when the retention is in years, then it ends that many calendar years after the end (29 February on 1 March), or years of the configured length', () => {
    expect(retainedUntilOf(t0, 5).toISOString()).toBe('2031-11-01T08:00:00.000Z');
    expect(retainedUntilOf(new Date('2028-02-29T12:00:00.000Z'), 5).toISOString()).toBe('2033-03-01T12:00:00.000Z');
    expect(retainedUntilOf(t0, 5, 1_000).toISOString()).toBe('2026-11-01T08:00:05.000Z');
  });

  it.each(['COMPLETED', 'FAILED', 'ABANDONED'] as const)(
    'when a change ends the application as %s, then the state and its ApplicationClosed fact say until when its records are kept',
    (status) => {
      const change = withRetention(closing(opened(), status), 7, t0);
      expect(change.state.retainedUntil).toEqual(new Date('2033-11-01T08:00:00.000Z'));
      expect(change.effects).toEqual([
        {
          kind: 'fact',
          fact: expect.objectContaining({ type: 'ApplicationClosed', retainedUntil: '2033-11-01T08:00:00.000Z' }),
        },
      ]);
    },
  );

  it('when a change neither ends nor reopens the application, then it is left as it is; a reopened one keeps no retention', () => {
    const ended = withRetention(closing(opened(), 'ABANDONED'), 5, t0).state;
    const unchanged = { state: { ...ended, updatedAt: new Date(t0.getTime() + DAY) }, effects: [] };
    expect(withRetention(unchanged, 5, t0)).toBe(unchanged);
    expect(
      withRetention({ state: { ...ended, status: 'PENDING_LINKING' }, effects: [] }, 5, t0).state.retainedUntil,
    ).toBeNull();
  });

  it('when record_retention passes, then it ends the records of the ending it was armed for only, and never of an open application', () => {
    const ended = withRetention(closing(opened(), 'COMPLETED'), 5, t0).state;
    const until = ended.retainedUntil!.toISOString();
    expect(recordRetentionEnded(ended, deadlineFor(ended, until))).toBe(true);
    // An earlier ending's deadline (resumed and ended again since) is stale.
    expect(recordRetentionEnded(ended, deadlineFor(ended, '2030-01-01T00:00:00.000Z'))).toBe(false);
    expect(recordRetentionEnded({ ...ended, status: 'PENDING_LINKING' }, deadlineFor(ended, until))).toBe(false);
    expect(recordRetentionEnded(ended, { ...deadlineFor(ended, until), kind: 'bank_data_retention' })).toBe(false);
    // Ended before its retention was kept on it: the janitor's default period decides.
    expect(recordRetentionEnded({ ...ended, retainedUntil: null }, deadlineFor(ended, until))).toBe(true);
  });
});
