import { randomUUID } from 'node:crypto';
import type { DeadlinePassed } from '@loan/contracts';
import type { Application, LinkedAccount } from '../application';
import {
  DEFAULT_CONSENT_TERMS,
  consentGiven,
  consentUsed,
  expireConsent,
  recordErasure,
  withdrawConsent,
} from './decide';

const t0 = new Date('2026-11-01T08:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const DAY = 86_400_000;

function account(): LinkedAccount {
  const accountId = randomUUID();
  return {
    accountId,
    providerAccountId: 'mono-1',
    institution: 'GTBank',
    accountNumber: '0123456789',
    holderName: 'sealed-name',
    enrichmentStatus: 'READY',
    linkedAt: t0,
    enrichedAt: later(60_000),
    monthlyFlows: [{ month: '2026-10', inflow: 350_000, outflow: 300_000 }],
    consent: consentGiven(accountId, t0, DEFAULT_CONSENT_TERMS),
  };
}

const application = (status: Application['status'], accounts = [account()]): Application =>
  ({
    applicationId: randomUUID(),
    clientId: 'client-a',
    applicantId: randomUUID(),
    status,
    accounts,
    updatedAt: t0,
  }) as unknown as Application;

const deadline = (state: Application, kind: 'consent_expiry' | 'consent_lapse', since: Date): DeadlinePassed => ({
  deadlineId: `${kind}:${state.accounts[0]!.accountId}:${since.toISOString()}`,
  kind,
  clientId: state.clientId,
  applicationId: state.applicationId,
  accountId: state.accounts[0]!.accountId,
  attempt: null,
  since: since.toISOString(),
  dueAt: since.toISOString(),
  firedAt: since.toISOString(),
});

describe('consent of a linked account', () => {
  it('when consent is given, then it lasts 365 days, lapses 180 days unused, and the same account always has the same consent id', () => {
    const a = account();
    expect(a.consent!.expiresAt.getTime() - t0.getTime()).toBe(365 * DAY);
    expect(a.consent!.lapsesAt.getTime() - t0.getTime()).toBe(180 * DAY);
    expect(consentGiven(a.accountId, later(5), DEFAULT_CONSENT_TERMS).consentId).toBe(a.consent!.consentId);
  });

  it('when the account is read again, then its lapse moves, never beyond its expiry', () => {
    const a = account();
    const soon = consentUsed(a, later(10 * DAY), DEFAULT_CONSENT_TERMS);
    expect(soon.consent!.lastUsedAt).toEqual(later(10 * DAY));
    expect(soon.consent!.lapsesAt).toEqual(later(190 * DAY));
    const used = consentUsed(a, later(300 * DAY), DEFAULT_CONSENT_TERMS);
    expect(used.consent!.lastUsedAt).toEqual(later(300 * DAY));
    expect(used.consent!.lapsesAt).toEqual(a.consent!.expiresAt);
    expect(consentUsed(a, t0, DEFAULT_CONSENT_TERMS)).toBe(a);
  });

  it('when a decided application’s consent is withdrawn, then it ends WITHDRAWN with its event and fact; twice is refused with when and why', () => {
    const state = application('COMPLETED');
    const first = withdrawConsent(state, state.accounts[0]!.accountId, later(1000));
    if (!first.ok) throw new Error(first.message);
    expect(first.result.consent).toMatchObject({ status: 'WITHDRAWN', endedAt: later(1000).toISOString() });
    expect(first.effects.map((e) => (e.kind === 'event' ? e.event : e.fact.type))).toEqual([
      'account.consent_ended',
      'ConsentEnded',
    ]);
    expect(withdrawConsent(first.state, state.accounts[0]!.accountId, later(2000))).toEqual({
      ok: false,
      code: 'INVALID_STATE',
      message: `The consent to read account ${state.accounts[0]!.accountId} already ended (WITHDRAWN) at ${later(1000).toISOString()}`,
    });
  });

  it.each(['PENDING_LINKING', 'LINKED', 'PROCESSING'] as const)(
    'when the application is %s, then a withdrawal is refused: its accounts are in use',
    (status) => {
      const state = application(status);
      const refused = withdrawConsent(state, state.accounts[0]!.accountId, later(1000));
      expect(refused).toMatchObject({ ok: false, code: 'INVALID_STATE' });
    },
  );

  it('when an account is not the application’s, then the withdrawal is NOT_FOUND', () => {
    expect(withdrawConsent(application('COMPLETED'), randomUUID(), t0)).toMatchObject({ ok: false, code: 'NOT_FOUND' });
  });

  it('when the expiry or a current lapse passes, then the consent ends EXPIRED or LAPSED; a stale lapse and an ended consent change nothing', () => {
    const state = application('COMPLETED');
    const consent = state.accounts[0]!.consent!;
    expect(
      expireConsent(state, deadline(state, 'consent_expiry', consent.givenAt), later(1))?.effects[0],
    ).toMatchObject({
      event: 'account.consent_ended',
      data: { reason: 'EXPIRED' },
    });
    const lapsed = expireConsent(state, deadline(state, 'consent_lapse', consent.lastUsedAt), later(1));
    expect(lapsed?.state.accounts[0]!.consent!.endReason).toBe('LAPSED');
    expect(expireConsent(state, deadline(state, 'consent_lapse', later(-5)), later(1))).toBeNull();
    expect(expireConsent(lapsed!.state, deadline(state, 'consent_expiry', consent.givenAt), later(2))).toBeNull();
  });

  it('when enrichment reports the ended consent’s account erased, then the account keeps its bank and last four digits, and account.data_erased names the receipt once', () => {
    const state = application('COMPLETED');
    const ended = withdrawConsent(state, state.accounts[0]!.accountId, later(1000));
    if (!ended.ok) throw new Error(ended.message);
    const { accountId, consent } = ended.state.accounts[0]!;
    const scrubbed = {
      type: 'BankDataScrubbed' as const,
      factId: randomUUID(),
      clientId: state.clientId,
      applicationId: state.applicationId,
      at: later(3000).toISOString(),
      accountIds: [accountId],
      consent: { accountId, consentId: consent!.consentId, unlinkedAt: later(2000).toISOString() },
    };
    const erased = recordErasure(ended.state, scrubbed, later(3000));
    expect(erased?.state.accounts[0]).toMatchObject({
      institution: 'GTBank',
      accountNumber: '******6789',
      holderName: '',
      monthlyFlows: [],
    });
    expect(erased?.effects[0]).toMatchObject({
      event: 'account.data_erased',
      data: {
        receipt: `/api/applications/${state.applicationId}/accounts/${accountId}/consent/receipt`,
        unlinkedAt: later(2000).toISOString(),
        bankDataErasedAt: later(3000).toISOString(),
      },
    });
    expect(recordErasure(erased!.state, scrubbed, later(4000))).toBeNull();
  });
});
