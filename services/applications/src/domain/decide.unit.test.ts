import { randomUUID } from 'node:crypto';
import { Decision, type DeadlinePassed, type MonthSummary } from '@loan/contracts';
import type { Application } from './application';
import { analyzeApplication } from './analyzeApplication/decide';
import { expireDeadline } from './expireDeadline/decide';
import { finalizeLinking } from './finalizeLinking/decide';
import { decideExistingKey, openApplication, resumeApplication } from './initiateApplication/decide';
import { relinkAccount } from './linkAccount/decide';
import { recordAccountLink } from './recordAccountLink/decide';
import { recordEnrichment } from './recordEnrichment/decide';
import { recordScoring } from './recordScoring/decide';
import { toView } from './view';

const t0 = new Date('2026-11-01T08:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

const request = {
  firstName: 'Adaeze',
  lastName: 'Okafor',
  email: 'ada@example.com',
  amount: 500_000,
  tenor: 12,
  interestRate: 5,
  idempotencyKey: 'key-1',
};

function opened(): Application {
  const outcome = openApplication({
    applicationId: randomUUID(),
    applicantId: randomUUID(),
    clientId: 'client-a',
    request,
    applicant: {
      firstName: 'sealed-first',
      lastName: 'sealed-last',
      email: 'sealed-email',
      phone: null,
      bvnSealed: null,
    },
    providerKeySealed: 'sealed-key',
    widgetUrl: 'http://sandbox/widget/1',
    now: t0,
  });
  if (!outcome.ok) throw new Error('open failed');
  return outcome.state;
}

const providerAccount = (id: string) => ({
  id,
  holderName: 'ADAEZE OKAFOR',
  accountNumber: '0123456785',
  currency: 'NGN',
  type: 'SAVINGS',
  balanceKobo: 100,
  bvnLast4: null,
  institution: { name: 'GTBank', bankCode: '058', type: 'PERSONAL_BANKING' },
});

function linked(state = opened(), providerId = 'mono-1') {
  const outcome = recordAccountLink(state, {
    callbackId: `cb-${providerId}`,
    accountId: randomUUID(),
    account: providerAccount(providerId),
    now: later(1000),
  });
  if (outcome.kind !== 'linked') throw new Error('link failed');
  return outcome;
}

/** A statement month with only what the flows read; the rest is the enrichment service's. */
const month = (m: string, credits: number, debits: number) => ({ month: m, credits, debits }) as MonthSummary;

function enriched(
  state: Application,
  accountId: string,
  months: MonthSummary[] = [],
  insights?: { startDate: string; endDate: string },
) {
  const change = recordEnrichment(
    state,
    {
      type: 'AccountEnriched',
      factId: randomUUID(),
      clientId: state.clientId,
      applicationId: state.applicationId,
      applicantId: state.applicantId,
      accountId,
      providerAccountId: 'x',
      attempt: 1,
      at: later(2000).toISOString(),
      profile: { months, insights } as never,
    },
    later(2000),
  );
  if (!change) throw new Error('enrichment not recorded');
  return change;
}

describe('initiate', () => {
  it('when the key is new, then the application is PENDING_LINKING, not resumed, and an ApplicationOpened fact is produced', () => {
    const state = opened();
    expect(state.status).toBe('PENDING_LINKING');
    expect(state.linkWindowStart).toEqual(t0);
  });

  it('when the key belongs to another client, then it is refused as owned by another account', () => {
    expect(decideExistingKey(opened(), 'client-b')).toMatchObject({ ok: false, code: 'KEY_OWNED_BY_OTHER_CLIENT' });
  });

  it.each(['LINKED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const)(
    'when the application is %s, then the key is in use (409)',
    (status) => {
      expect(decideExistingKey({ ...opened(), status }, 'client-a')).toMatchObject({ ok: false, code: 'KEY_IN_USE' });
    },
  );

  it('when an ABANDONED application is resumed, then it is PENDING_LINKING with a fresh widget and a new link window', () => {
    const abandoned = { ...opened(), status: 'ABANDONED' as const, abandonReason: 'no_link' as const };
    expect(decideExistingKey(abandoned, 'client-a')).toEqual({ action: 'resume' });
    const resent = { ...request, lastName: 'Okafor-Eze', bvn: '22200000009', amount: 420_000, tenor: 9 };
    const applicant = {
      firstName: 'sealed-first',
      lastName: 'sealed-last-2',
      email: 'sealed-email',
      phone: null,
      bvnSealed: 'sealed-bvn',
    };
    const outcome = resumeApplication(abandoned, {
      request: resent,
      applicant,
      widgetUrl: 'http://sandbox/widget/2',
      providerKeySealed: 'k',
      now: later(5000),
    });
    expect(outcome).toMatchObject({
      ok: true,
      result: { resumed: true, status: 'PENDING_LINKING', widgetUrl: 'http://sandbox/widget/2' },
    });
    if (outcome.ok) {
      expect(outcome.state.status).toBe('PENDING_LINKING');
      expect(outcome.state.linkWindowStart).toEqual(later(5000));
      expect(outcome.state.abandonReason).toBeNull();
      // The resending request is the lender's current truth.
      expect(outcome.state.applicant).toEqual(applicant);
      expect(outcome.state.loan).toMatchObject({ amount: 420_000, tenor: 9 });
    }
  });
});

describe('linking and finalize', () => {
  it('when the first account links, then the application is LINKED and account.linked goes out before the internal fact, which carries the consent', () => {
    const { state, effects } = linked();
    expect(state.status).toBe('LINKED');
    expect(state.firstLinkedAt).toEqual(later(1000));
    expect(effects.map((e) => (e.kind === 'event' ? e.event : e.fact.type))).toEqual([
      'account.linked',
      'AccountLinked',
    ]);
    const fact = effects[1]!.kind === 'fact' ? effects[1]!.fact : null;
    const consent = state.accounts[0]!.consent!;
    expect(fact).toMatchObject({
      consent: {
        consentId: consent.consentId,
        givenAt: later(1000).toISOString(),
        expiresAt: consent.expiresAt.toISOString(),
        lapsesAt: consent.lapsesAt.toISOString(),
        idleLapseMs: 180 * 86_400_000,
      },
    });
  });

  it('when the same provider account is reported twice, then it is one account and no second event', () => {
    const first = linked();
    const again = recordAccountLink(first.state, {
      callbackId: 'cb-other',
      accountId: randomUUID(),
      account: providerAccount('mono-1'),
      now: later(3000),
    });
    expect(again.kind).toBe('duplicate');
  });

  it('when finalize is called before any account, then the spec message names the status', () => {
    expect(finalizeLinking(opened(), t0)).toEqual({
      ok: false,
      code: 'INVALID_STATE',
      message: 'Cannot finalize linking for application with status: PENDING_LINKING',
    });
  });

  it('when finalize is called and every account is already enriched, then ready_for_analysis goes out at once, exactly once', () => {
    const l = linked();
    const e = enriched(l.state, l.accountId);
    // Nothing the lender receives, and no fact: the janitor reads the consent's use from the enrichment's own.
    expect(e.effects).toEqual([]);
    const f = finalizeLinking(e.state, later(3000));
    expect(f.ok && f.effects.filter((x) => x.kind === 'event').map((x) => x.kind === 'event' && x.event)).toEqual([
      'application.ready_for_analysis',
    ]);
    if (!f.ok) throw new Error();
    const again = finalizeLinking(f.state, later(4000));
    expect(again.ok && again.effects).toEqual([]);
  });

  it("when an account's enrichment is recorded late, then its consent was last used at the enrichment's own time, the janitor's rule", () => {
    const l = linked();
    const result = {
      type: 'AccountEnriched' as const,
      factId: randomUUID(),
      clientId: l.state.clientId,
      applicationId: l.state.applicationId,
      applicantId: l.state.applicantId,
      accountId: l.accountId,
      providerAccountId: 'x',
      attempt: 1,
      at: later(2000).toISOString(),
      profile: { months: [] } as never,
    };
    const change = recordEnrichment(l.state, result, later(60_000));
    const consent = change!.state.accounts[0]!.consent!;
    expect(consent.lastUsedAt).toEqual(later(2000));
    expect(consent.lapsesAt).toEqual(new Date(later(2000).getTime() + 180 * 86_400_000));
  });

  it('when enrichment completes after finalize, then ready_for_analysis goes out with the account count', () => {
    const first = linked();
    const second = linked(first.state, 'mono-2');
    const f = finalizeLinking(second.state, later(2000));
    if (!f.ok) throw new Error();
    expect(f.effects.some((x) => x.kind === 'event')).toBe(false);
    const one = enriched(f.state, first.accountId);
    expect(one.effects).toEqual([]);
    const both = enriched(one.state, second.accountId);
    expect(both.effects.filter((x) => x.kind === 'event')).toEqual([
      expect.objectContaining({
        kind: 'event',
        event: 'application.ready_for_analysis',
        data: expect.objectContaining({ accountCount: 2 }),
      }),
    ]);
  });

  it('when an account links after finalize, then it is refused', () => {
    const l = linked();
    const f = finalizeLinking(l.state, later(2000));
    if (!f.ok) throw new Error();
    const late = recordAccountLink(f.state, {
      callbackId: 'cb-late',
      accountId: randomUUID(),
      account: providerAccount('mono-9'),
      now: later(3000),
    });
    expect(late).toMatchObject({ kind: 'refused', reason: 'linking was finalized' });
  });
});

describe('analyze and scoring', () => {
  function ready() {
    const l = linked();
    const f = finalizeLinking(enriched(l.state, l.accountId).state, later(3000));
    if (!f.ok) throw new Error();
    return f.state;
  }

  it('when the application is read, then it says when its statement was read, when linking was finalized and when the analysis was asked for', () => {
    const l = linked();
    expect(toView(l.state)).toMatchObject({
      linkingFinalizedAt: null,
      analysisRequestedAt: null,
      accounts: [{ enrichedAt: null }],
    });
    const outcome = analyzeApplication(ready(), { analysisId: 'a-1', now: later(4000) });
    if (!outcome.ok) throw new Error();
    expect(toView(outcome.state)).toMatchObject({
      linkingFinalizedAt: later(3000).toISOString(),
      analysisRequestedAt: later(4000).toISOString(),
      accounts: [{ enrichedAt: later(2000).toISOString() }],
    });
  });

  it('when analyze comes before ready_for_analysis, then it is a 400-class refusal', () => {
    const l = linked();
    expect(analyzeApplication(l.state, { analysisId: randomUUID(), now: later(2000) })).toMatchObject({
      ok: false,
      code: 'NO_ACCOUNTS',
    });
    expect(analyzeApplication(opened(), { analysisId: randomUUID(), now: t0 })).toMatchObject({
      ok: false,
      code: 'NO_ACCOUNTS',
    });
  });

  it('when analyze comes after ready, then the application is PROCESSING and an AnalysisRequested fact carries the terms', () => {
    const outcome = analyzeApplication(ready(), { analysisId: 'a-1', now: later(4000) });
    expect(outcome).toMatchObject({ ok: true, state: { status: 'PROCESSING' }, result: { status: 'PROCESSING' } });
    expect(outcome.ok && outcome.effects[0]).toMatchObject({
      kind: 'fact',
      fact: { type: 'AnalysisRequested', analysisId: 'a-1', loan: { amount: 500_000, tenor: 12, interestRate: 5 } },
    });
  });

  it('when the scoring result arrives, then the application is COMPLETED and application.decision carries the score', () => {
    const outcome = analyzeApplication(ready(), { analysisId: 'a-1', now: later(4000) });
    if (!outcome.ok) throw new Error();
    const decision = { score: 700 } as Decision;
    const base = {
      factId: randomUUID(),
      clientId: 'client-a',
      applicationId: outcome.state.applicationId,
      applicantId: outcome.state.applicantId,
      at: later(5000).toISOString(),
      analysisId: 'a-1',
    };
    const done = recordScoring(outcome.state, { ...base, type: 'ApplicationScored', decision }, later(5000));
    expect(done?.state.status).toBe('COMPLETED');
    expect(done?.effects[0]).toMatchObject({
      kind: 'event',
      event: 'application.decision',
      data: { status: 'COMPLETED', score: 700 },
    });
    const stale = recordScoring(
      outcome.state,
      { ...base, analysisId: 'other', type: 'ScoringFailed', reason: 'x' },
      later(5000),
    );
    expect(stale).toBeNull();
    const failed = recordScoring(
      outcome.state,
      { ...base, type: 'ScoringFailed', reason: 'no enriched accounts' },
      later(5000),
    );
    expect(failed?.state.status).toBe('FAILED');
    expect(failed?.effects[0]).toMatchObject({
      event: 'application.failed',
      data: { status: 'FAILED', reason: 'no enriched accounts' },
    });
  });

  it('when analysis_timeout passes for the current analysis, then FAILED with reason analysis_timeout; for an older one, nothing', () => {
    const outcome = analyzeApplication(ready(), { analysisId: 'a-1', now: later(4000) });
    if (!outcome.ok) throw new Error();
    const passed = (since: Date): DeadlinePassed => ({
      deadlineId: `analysis_timeout:${since.toISOString()}`,
      kind: 'analysis_timeout',
      clientId: 'client-a',
      applicationId: outcome.state.applicationId,
      accountId: null,
      attempt: null,
      since: since.toISOString(),
      dueAt: later(9000).toISOString(),
      firedAt: later(9000).toISOString(),
    });
    expect(expireDeadline(outcome.state, passed(later(3000)), later(9000))).toBeNull();
    const change = expireDeadline(outcome.state, passed(later(4000)), later(9000));
    expect(change?.state).toMatchObject({ status: 'FAILED', failureReason: 'analysis_timeout' });
    expect(change?.effects[0]).toMatchObject({
      event: 'application.failed',
      data: { status: 'FAILED', reason: 'analysis_timeout' },
    });
    expect(change?.effects[1]).toMatchObject({ kind: 'fact', fact: { type: 'ApplicationClosed', status: 'FAILED' } });
    expect(expireDeadline(change!.state, passed(later(4000)), later(9500))).toBeNull();
  });
});

describe('deadlines and re-linking', () => {
  const deadline = (state: Application, kind: DeadlinePassed['kind'], since: Date): DeadlinePassed => ({
    deadlineId: `${kind}:${state.applicationId}`,
    kind,
    clientId: state.clientId,
    applicationId: state.applicationId,
    accountId: null,
    attempt: null,
    since: since.toISOString(),
    dueAt: later(10_000).toISOString(),
    firedAt: later(10_000).toISOString(),
  });

  it('when no_link passes with no account linked, then the application is ABANDONED with reason no_link', () => {
    const state = opened();
    const change = expireDeadline(state, deadline(state, 'no_link', t0), later(10_000));
    expect(change?.state.status).toBe('ABANDONED');
    expect(change?.effects[0]).toMatchObject({ event: 'application.abandoned', data: { reason: 'no_link' } });
  });

  it('when no_link passes for an older window (the application was resumed since), then nothing happens', () => {
    const state = { ...opened(), linkWindowStart: later(5000) };
    expect(expireDeadline(state, deadline(state, 'no_link', t0), later(10_000))).toBeNull();
  });

  it('when no_link passes but an account was linked, then nothing happens', () => {
    const { state } = linked();
    expect(expireDeadline(state, deadline(state, 'no_link', t0), later(10_000))).toBeNull();
  });

  it('when no_analyze passes, then the application is ABANDONED and its bank data scrubbed', () => {
    const { state } = linked();
    const change = expireDeadline(state, deadline(state, 'no_analyze', later(1000)), later(10_000));
    expect(change?.state).toMatchObject({ status: 'ABANDONED', abandonReason: 'no_analyze', accounts: [] });
    expect(change?.effects[1]).toMatchObject({
      kind: 'fact',
      fact: { type: 'ApplicationClosed', abandonReason: 'no_analyze' },
    });
  });

  it("when a decided application's bank data retention ends, then its accounts keep institution and status but lose the account number (last four digits stay), the holder name and the monthly flows, once", () => {
    const l = linked();
    const state = enriched(l.state, l.accountId, [month('2026-09', 1, 2)]).state;
    const decided = { ...state, status: 'COMPLETED' as const };
    const change = expireDeadline(decided, deadline(decided, 'bank_data_retention', later(1000)), later(10_000));
    expect(change?.effects).toEqual([]);
    expect(
      change?.state.accounts.map((a) => [
        a.accountNumber.slice(0, 6),
        a.accountNumber.slice(-4),
        a.holderName,
        a.institution,
      ]),
    ).toEqual(state.accounts.map((a) => ['******', a.accountNumber.slice(-4), '', a.institution]));
    expect(change?.state.accounts.map((a) => a.monthlyFlows)).toEqual([[]]);
    expect(
      expireDeadline(change!.state, deadline(decided, 'bank_data_retention', later(1000)), later(11_000)),
    ).toBeNull();
    expect(expireDeadline(state, deadline(state, 'bank_data_retention', later(1000)), later(10_000))).toBeNull();
  });

  it('when link-account names an account, then its enrichment restarts and the widget is fresh', () => {
    const l = linked();
    const outcome = relinkAccount(l.state, {
      accountId: l.accountId,
      widgetUrl: 'http://sandbox/widget/re',
      providerKeySealed: 'k',
      now: later(2000),
    });
    expect(outcome).toMatchObject({
      ok: true,
      result: { widgetUrl: 'http://sandbox/widget/re', accountId: l.accountId },
    });
    expect(outcome.ok && outcome.effects[0]).toMatchObject({
      kind: 'fact',
      fact: { type: 'EnrichmentRestartRequested', accountId: l.accountId },
    });
  });

  it.each(['PROCESSING', 'COMPLETED', 'FAILED', 'ABANDONED'] as const)(
    'when link-account is called on a %s application, then it is refused',
    (status) => {
      const outcome = relinkAccount(
        { ...opened(), status },
        { accountId: null, widgetUrl: 'u', providerKeySealed: 'k', now: t0 },
      );
      expect(outcome).toMatchObject({ ok: false, code: 'INVALID_STATE' });
    },
  );
});

describe('monthly flows', () => {
  it('when an account is enriched, then its statement months become its inflows and outflows, oldest first', () => {
    const { state, accountId } = linked();
    const change = enriched(state, accountId, [month('2026-10', 398_000, 402_750), month('2026-09', 412_500, 371_200)]);
    expect(change.state.accounts[0]!.monthlyFlows).toEqual([
      { month: '2026-09', inflow: 412_500, outflow: 371_200 },
      { month: '2026-10', inflow: 398_000, outflow: 402_750 },
    ]);
  });

  it('when the statement starts and ends within a month, then those months are marked partial and the whole months between are not', () => {
    const { state, accountId } = linked();
    const months = [
      month('2026-08', 10, 5),
      month('2026-09', 412_500, 371_200),
      month('2026-10', 398_000, 402_750),
      month('2026-11', 3, 4),
    ];
    const flows = (period: { startDate: string; endDate: string }) =>
      enriched(state, accountId, months, period).state.accounts[0]!.monthlyFlows.map((f) => [f.month, f.partial]);
    expect(flows({ startDate: '2026-08-17', endDate: '2026-11-19' })).toEqual([
      ['2026-08', true],
      ['2026-09', false],
      ['2026-10', false],
      ['2026-11', true],
    ]);
    // A statement from a month's first day to its last (30 November) covers whole months.
    expect(flows({ startDate: '2026-08-01T00:00:00.000Z', endDate: '2026-11-30' })).toEqual([
      ['2026-08', false],
      ['2026-09', false],
      ['2026-10', false],
      ['2026-11', false],
    ]);
    // A period not known marks nothing.
    expect(flows({ startDate: '', endDate: '' }).map(([, partial]) => partial)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('when the bank data of the account is scrubbed, then its flows go, and a second notice changes nothing', () => {
    const { state, accountId } = linked();
    const withFlows = enriched(state, accountId, [month('2026-09', 1, 2)]).state;
    const scrubbed = {
      type: 'BankDataScrubbed' as const,
      factId: randomUUID(),
      clientId: state.clientId,
      applicationId: state.applicationId,
      at: later(3000).toISOString(),
      accountIds: [accountId],
    };
    const change = recordEnrichment(withFlows, scrubbed, later(3000));
    expect(change?.state.accounts[0]!.monthlyFlows).toEqual([]);
    expect(change?.effects).toEqual([]);
    expect(recordEnrichment(change!.state, scrubbed, later(4000))).toBeNull();
  });
});
