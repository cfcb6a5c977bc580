import { randomUUID } from 'node:crypto';
import { Topics, type ClientChanged, type Decision, type ApplicationView } from '@loan/contracts';
import { commandSender, type CommandInput } from '@testing/commands';
import { waitFor } from '@testing/helpers';
import {
  isolatedRegistry,
  startApplications,
  startJanitor,
  startSandbox,
  suiteNamespace,
  testBus,
  testSealer,
  type Running,
} from '@testing/stack';
import type { ApplicationModel } from './data-access/applicationModel';
import { createApplicationRepository } from './data-access/applicationRepository';
import type { Application } from './domain/application';

/**
 * The records of an ended application through the lender's retention period, against the real
 * broker, registry and database: the lender's `recordRetentionYears` arrives on
 * `loan.gateway.clients`, the janitor's `record_retention` deadline ends the period, and the
 * applications service purges the record. A year of retention lasts a second here
 * (`RECORD_RETENTION_YEAR`), the bank data's retention two.
 */
const YEAR_MS = 1_000;
const ns = suiteNamespace();
const sealer = testSealer();
let bus: ReturnType<typeof testBus>;
let registry: Awaited<ReturnType<typeof isolatedRegistry>>;
const services: Running[] = [];
let applications: Running;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let repo: ReturnType<typeof createApplicationRepository>;
let lender: Awaited<ReturnType<typeof commandSender>>;

beforeAll(async () => {
  // The schemas of this branch, whatever other branches register on a shared registry meanwhile.
  registry = await isolatedRegistry(`test-${ns}`);
  const SCHEMA_REGISTRY_URL = registry.url;
  process.env.SCHEMA_REGISTRY_URL = SCHEMA_REGISTRY_URL;
  bus = testBus(ns, 'applications-retention-test');
  sandbox = await startSandbox('http://127.0.0.1:9/provider/webhooks/mono');
  applications = await startApplications(ns, {
    PROVIDER_BASE_URL: sandbox.url,
    RECORD_RETENTION_YEAR: `${YEAR_MS}ms`,
    SCHEMA_REGISTRY_URL,
  });
  services.push(
    applications,
    await startJanitor(ns, {
      NO_LINK_TTL: '1s',
      BANK_DATA_RETENTION: '2s',
      JANITOR_POLL_INTERVAL: '200ms',
      SCHEMA_REGISTRY_URL,
    }),
  );
  repo = createApplicationRepository(
    applications.runtime.db.model('Application') as unknown as ApplicationModel,
    sealer,
  );
  await bus.connect();
  lender = await commandSender(bus, 'retention-test');
});

afterAll(async () => {
  await bus.disconnect();
  for (const s of services.reverse()) await s.stop();
  await sandbox?.stop();
  await registry?.close();
});

const send = (input: CommandInput) => lender.send(input);
const view = async (clientId: string, applicationId: string) => {
  const read = await send({ type: 'GetApplication', clientId, applicationId });
  return read.ok ? (read.result as unknown as ApplicationView) : null;
};

/** The lender's account as the gateway publishes it, with its record retention. */
async function lenderWith(recordRetentionYears: number): Promise<string> {
  const clientId = `c-${randomUUID()}`;
  const change: ClientChanged = {
    clientId,
    name: 'Retention Lending',
    webhookUrl: null,
    webhookSecrets: [],
    providerSecretKey: null,
    version: 2,
    changedAt: new Date().toISOString(),
    recordRetentionYears,
  };
  await bus.publish(Topics.clients, [{ key: clientId, value: change }]);
  await waitFor(
    () => applications.runtime.db.collection('client_settings').findOne({ _id: clientId as never, version: 2 }),
    { what: 'the client settings projection' },
  );
  return clientId;
}

function counterOffer(applicantId: string): Decision {
  return {
    score: 575,
    decision: 'COUNTER_OFFER',
    score_band: 'MEDIUM_RISK',
    timestamp: new Date().toISOString(),
    applicant_id: applicantId,
    approval_details: { approved_amount: 0, approved_tenor: 0, approved_interest: 0, monthly_payment: 0 },
    counter_offer: {
      amount: 300_000,
      tenor: 12,
      interest_rate: 5,
      monthly_payment: 33_847.63,
      reason: 'The amount asked is above what the income carries',
    },
    risk_factors: [],
    score_breakdown: {
      total: 575,
      cash_flow_health: 140,
      income_stability: 130,
      debt_service_capacity: 110,
      account_behavior: 105,
      credit_history: 90,
    },
    explainability: {
      primary_reason: 'The amount asked is above what the income carries',
      key_strengths: [],
      key_weaknesses: [],
    },
    eligible_tenors: [12],
    manual_review_reasons: [],
    regulatory_compliance: {
      thin_file: false,
      identity_verified: true,
      credit_bureau_checked: true,
      affordability_assessed: true,
    },
    scorecard_version: 'test',
  };
}

/** An application of `clientId` with a linked account, scored COUNTER_OFFER through scoring's results topic. */
async function decided(clientId: string) {
  const applicationId = randomUUID();
  const applicantId = randomUUID();
  const analysisId = randomUUID();
  const now = new Date();
  const state: Application = {
    applicationId,
    clientId,
    applicantId,
    idempotencyKey: `retention-${applicationId}`,
    status: 'PROCESSING',
    applicant: { firstName: 'Adaeze', lastName: 'Okafor', email: 'ada@example.com', phone: null, bvnSealed: null },
    loan: { amount: 500_000, tenor: 12, interestRate: 5, purpose: null },
    providerKeySealed: sealer.for('client-secrets').seal('test_sk'),
    widgetUrl: 'http://127.0.0.1:9/widget',
    linkWindowStart: now,
    linkingLocked: true,
    readyAnnounced: true,
    firstLinkedAt: now,
    accounts: [
      {
        accountId: randomUUID(),
        providerAccountId: `mono-${randomUUID()}`,
        institution: 'GTBank',
        accountNumber: '0123456789',
        holderName: sealer.seal('OKAFOR ADAEZE'),
        enrichmentStatus: 'READY',
        linkedAt: now,
        enrichedAt: now,
        monthlyFlows: [{ month: '2026-10', inflow: 400_000, outflow: 350_000, partial: false }],
      },
    ],
    analysis: { analysisId, requestedAt: now },
    decision: null,
    repaymentCapacity: null,
    review: null,
    failureReason: null,
    abandonReason: null,
    handled: [],
    createdAt: now,
    updatedAt: now,
  };
  await repo.insert(state, []);
  await bus.publish(Topics.scoringResults, [
    {
      key: applicationId,
      value: {
        type: 'ApplicationScored',
        factId: randomUUID(),
        clientId,
        applicationId,
        applicantId,
        analysisId,
        at: new Date().toISOString(),
        decision: counterOffer(applicantId),
        repaymentCapacity: 40_000,
      },
    },
  ]);
  const completed = await waitFor(
    async () => {
      const read = await view(clientId, applicationId);
      return read?.status === 'COMPLETED' ? read : null;
    },
    { what: 'the decision' },
  );
  return { applicationId, applicantId, completed };
}

describe("an ended application's records through the lender's retention period", () => {
  it('when a decided application is contested, reviewed and its offer accepted, then all of it stays readable after the bank-data scrub until retainedUntil, and the record is purged then, not before', async () => {
    const clientId = await lenderWith(7);
    const { applicationId, completed } = await decided(clientId);
    const retainedUntil = Date.parse(completed.retainedUntil!);
    // Seven of the lender's years from the decision.
    expect(retainedUntil - Date.parse(completed.updatedAt)).toBe(7 * YEAR_MS);

    const contested = await send({
      type: 'ContestDecision',
      clientId,
      applicationId,
      statement: sealer.seal('My salary was paid late that month'),
    });
    expect(contested).toMatchObject({ ok: true });
    const { reviewer: _r, ...review } = {
      outcome: 'APPROVED' as const,
      terms: { amount: 300_000, tenor: 12, interestRate: 5 },
      reasonCode: 'CONTEST_UPHELD',
      reviewer: 'officer-1',
    };
    expect(
      await send({
        type: 'ReviewApplication',
        clientId,
        applicationId,
        review,
        reviewer: sealer.seal('officer-1'),
        note: null,
        confirmationAbove: null,
      }),
    ).toMatchObject({ ok: true });
    expect(
      await send({ type: 'ConfirmReview', clientId, applicationId, reviewer: sealer.seal('officer-2') }),
    ).toMatchObject({ ok: true });
    expect(await send({ type: 'RespondToOffer', clientId, applicationId, response: 'ACCEPTED' })).toMatchObject({
      ok: true,
    });

    // The bank data's retention ends first: the account number is cut, the decision and what
    // was disclosed and answered on it stay, and so does the record's retention.
    const scrubbed = await waitFor(
      async () => {
        const read = await view(clientId, applicationId);
        return read?.accounts[0]?.accountNumber === '******6789' ? read : null;
      },
      { what: 'the bank-data scrub', timeoutMs: 20_000 },
    );
    expect(Date.now()).toBeLessThan(retainedUntil);
    expect(scrubbed).toMatchObject({
      status: 'COMPLETED',
      decision: { decision: 'COUNTER_OFFER', score: 575 },
      contest: { status: 'RESOLVED' },
      review: { outcome: 'APPROVED', status: 'FINAL', reviewer: 'officer-1', confirmedBy: 'officer-2' },
      offer: { status: 'ACCEPTED', acceptedAt: expect.any(String), key_facts: expect.any(Object) },
      retainedUntil: completed.retainedUntil,
    });
    expect(scrubbed.accounts[0]!.monthlyFlows).toEqual([]);

    // Then the record goes at the end of its retention, not before.
    const gone = await waitFor(async () => ((await view(clientId, applicationId)) === null ? Date.now() : null), {
      what: 'the purge',
      timeoutMs: 30_000,
    });
    expect(gone).toBeGreaterThanOrEqual(retainedUntil);
    expect(
      await applications.runtime.db.collection('applications').findOne({ _id: applicationId as never }),
    ).toBeNull();
    expect(await send({ type: 'GetApplication', clientId, applicationId })).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    });
  });

  it('when an application is abandoned and resumed, then its retention stops until it ends again, with the default of five years for a lender that set none', async () => {
    const clientId = `c-${randomUUID()}`;
    const idempotencyKey = `retention-${randomUUID()}`;
    const initiate: CommandInput = {
      type: 'InitiateApplication',
      clientId,
      request: { amount: 300_000, tenor: 6, interestRate: 5, idempotencyKey },
      applicant: sealer.seal(
        JSON.stringify({ firstName: 'Chiamaka', lastName: 'Obi', email: 'chiamaka@example.ng', bvn: '22200000009' }),
      ),
      providerKey: sealer.for('client-secrets').seal('test_sk_sandbox'),
    };
    const opened = await send(initiate);
    if (!opened.ok) throw new Error(opened.message);
    const { applicationId } = opened.result as { applicationId: string };
    expect((await view(clientId, applicationId))?.retainedUntil).toBeNull();

    const abandoned = await waitFor(
      async () => {
        const read = await view(clientId, applicationId);
        return read?.status === 'ABANDONED' ? read : null;
      },
      { what: 'the no_link abandonment', timeoutMs: 20_000 },
    );
    const firstEnd = Date.parse(abandoned.retainedUntil!);
    expect(firstEnd - Date.parse(abandoned.updatedAt)).toBe(5 * YEAR_MS);

    expect(await send(initiate)).toMatchObject({ ok: true, result: { resumed: true } });
    expect((await view(clientId, applicationId))?.retainedUntil ?? null).toBeNull();
    // Past the first ending's retention, the resumed application is still there: it ended again
    // since (no link in time, a second at least after the resume), with a retention of its own.
    await waitFor(async () => Date.now() > firstEnd + 400, { what: 'the first retention to pass', timeoutMs: 10_000 });
    expect(await view(clientId, applicationId)).not.toBeNull();
    const again = await waitFor(
      async () => {
        const read = await view(clientId, applicationId);
        return read?.status === 'ABANDONED' && read.retainedUntil ? read : null;
      },
      { what: 'the second ending' },
    );
    expect(Date.parse(again.retainedUntil!)).toBeGreaterThan(firstEnd);
    await waitFor(async () => (await view(clientId, applicationId)) === null, { what: 'the purge', timeoutMs: 30_000 });
  });
});
