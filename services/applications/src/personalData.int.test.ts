import { randomUUID } from 'node:crypto';
import { Topics, indexedTerm, searchTextTerms, type ApplicationFact } from '@loan/contracts';
import { isSealed } from '@loan/runtime';
import { commandSender, type CommandInput } from '@testing/commands';
import { waitFor } from '@testing/helpers';
import { startApplications, startSandbox, suiteNamespace, testBus, testSealer, type Running } from '@testing/stack';
import type { Application } from './domain/application';

/**
 * The applicant's identity at rest: sealed in the applications collection, opened only for the
 * lender's reads (status, list), through the service's own entry points against the real broker,
 * registry, database and the sandbox provider.
 */
const ns = suiteNamespace();
const sealer = testSealer();
const bus = testBus(ns, 'applications-personal-data-test');
const facts: ApplicationFact[] = [];
let applications: Running;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let lender: Awaited<ReturnType<typeof commandSender>>;

beforeAll(async () => {
  // Nothing is linked here: the sandbox's webhooks would have nowhere to go.
  sandbox = await startSandbox('http://127.0.0.1:9/provider/webhooks/mono');
  applications = await startApplications(ns, { PROVIDER_BASE_URL: sandbox.url });
  await bus.connect();
  lender = await commandSender(bus, 'personal-data-test');
  await bus.consume({
    groupId: 'personal-data-test-facts',
    topics: [Topics.applicationFacts],
    handle: async (m) => void facts.push(m.value as ApplicationFact),
  });
});

afterAll(async () => {
  await bus.disconnect();
  await applications?.stop();
  await sandbox?.stop();
});

type Input = CommandInput;
const send = (input: Input) => lender.send(input);

const person = () => {
  const tag = randomUUID().slice(0, 6);
  return {
    firstName: `Chiamaka${tag}`,
    lastName: `Obi${tag}`,
    email: `chiamaka.${tag}@example.ng`,
    phone: `0803${tag.replace(/\D/g, '7').padEnd(7, '1')}`,
  };
};

/** An initiate as the gateway sends it: the applicant's identity and the provider key sealed. */
const initiate = (clientId: string, idempotencyKey: string, who: ReturnType<typeof person>): Input => ({
  type: 'InitiateApplication',
  clientId,
  request: { amount: 300_000, tenor: 6, interestRate: 5, idempotencyKey },
  applicant: sealer.seal(JSON.stringify({ ...who, bvn: '22200000009' })),
  providerKey: sealer.for('client-secrets').seal('test_sk_sandbox'),
});

const stored = (applicationId: string) =>
  applications.runtime.db.collection('applications').findOne({ _id: applicationId as never });

/** Which of the person's values the stored document holds readable. */
const readableIn = (doc: unknown, who: Record<string, string>) =>
  Object.entries(who)
    .filter(([, value]) => JSON.stringify(doc).toLowerCase().includes(value.toLowerCase()))
    .map(([field]) => field);

/** The status read and the list (found by `q`) show the person's names and e-mail in clear. */
async function seesIdentity(clientId: string, applicationId: string, q: string, who: ReturnType<typeof person>) {
  const view = await send({ type: 'GetApplication', clientId, applicationId });
  expect(view.ok && view.result.applicant).toEqual({
    firstName: who.firstName,
    lastName: who.lastName,
    email: who.email,
  });
  const listed = await send({ type: 'ListApplications', clientId, statuses: [], q, limit: 10, after: null });
  expect(listed.ok && listed.result.items).toEqual([
    expect.objectContaining({ applicationId, applicantName: `${who.firstName} ${who.lastName}` }),
  ]);
}

describe('the applicant\u2019s identity at rest', () => {
  it('when an application is initiated and resumed, then the stored document holds names, e-mail, phone and BVN only sealed, and the status read and the list by applicant id show them', async () => {
    const clientId = `c-${randomUUID()}`;
    const key = `pd-${randomUUID()}`;
    const who = person();
    const opened = await send(initiate(clientId, key, who));
    expect(opened).toMatchObject({ ok: true, result: { status: 'PENDING_LINKING', resumed: false } });
    if (!opened.ok) throw new Error(opened.message);
    const { applicationId, applicantId } = opened.result as { applicationId: string; applicantId: string };

    const doc = await stored(applicationId);
    expect(readableIn(doc, { ...who, bvn: '22200000009' })).toEqual([]);
    const applicant = doc!.applicant as Application['applicant'];
    expect(Object.values(applicant).every((v) => typeof v === 'string' && isSealed(v))).toBe(true);
    expect(
      [applicant.firstName, applicant.lastName, applicant.email, applicant.phone!].map((v) => sealer.open(v)),
    ).toEqual([who.firstName, who.lastName, who.email, who.phone]);

    await seesIdentity(clientId, applicationId, applicantId, who);

    // The same key again resumes it, with the resending request's identity; another lender's is refused.
    const renamed = { ...who, lastName: `${who.lastName}-Eze` };
    expect(await send(initiate(clientId, key, renamed))).toMatchObject({
      ok: true,
      result: { applicationId, resumed: true },
    });
    expect(await send(initiate(`other-${clientId}`, key, renamed))).toMatchObject({
      ok: false,
      code: 'KEY_OWNED_BY_OTHER_CLIENT',
    });
    const resumed = await send({ type: 'GetApplication', clientId, applicationId });
    expect(resumed.ok && resumed.result.applicant).toMatchObject({ lastName: renamed.lastName });
    expect(readableIn(await stored(applicationId), renamed)).toEqual([]);
  });

  it('when an application is initiated and resumed under another name, then a search finds it by the names, e-mail, phone and BVN it was sent with, and after the resume by the new name and not the old', async () => {
    const clientId = `c-${randomUUID()}`;
    const key = `pd-${randomUUID()}`;
    const who = person();
    const opened = await send(initiate(clientId, key, who));
    if (!opened.ok) throw new Error(opened.message);
    const { applicationId } = opened.result as { applicationId: string };
    /** The applications a search text finds, as the gateway asks for them. */
    const found = async (text: string) => {
      const search = searchTextTerms(text)!.map((alternatives) =>
        alternatives.flatMap((term) => sealer.blindIndexes(indexedTerm(clientId, term))),
      );
      const listed = await send({
        type: 'ListApplications',
        clientId,
        statuses: [],
        q: null,
        search,
        limit: 10,
        after: null,
      });
      if (!listed.ok) throw new Error(listed.message);
      return (listed.result.items as { applicationId: string }[]).map((item) => item.applicationId);
    };
    for (const text of [
      who.firstName,
      who.lastName,
      `${who.lastName} ${who.firstName}`,
      who.email,
      who.phone,
      '22200000009',
    ])
      expect(await found(text)).toEqual([applicationId]);

    const renamed = { ...who, lastName: `Eze${who.lastName}` };
    expect(await send(initiate(clientId, key, renamed))).toMatchObject({ ok: true, result: { resumed: true } });
    expect(await found(renamed.lastName)).toEqual([applicationId]);
    expect(await found(who.lastName)).toEqual([]);
    expect(await found(who.firstName)).toEqual([applicationId]);
  });

  it('when an application was stored before identity was sealed, then reads show it as it was, its next write seals it, and the analysis request carries the names sealed', async () => {
    const clientId = `c-${randomUUID()}`;
    const applicationId = randomUUID();
    const applicantId = randomUUID();
    const who = person();
    const holderName = `${who.lastName.toUpperCase()} ${who.firstName.toUpperCase()}`;
    const now = new Date();
    // A document as the service wrote it before: identity and holder name in plain text.
    await applications.runtime.db.collection('applications').insertOne({
      _id: applicationId as never,
      rev: 1,
      clientId,
      applicantId,
      idempotencyKey: `legacy-${applicationId}`,
      status: 'LINKED',
      applicant: { ...who, bvnSealed: null },
      loan: { amount: 300_000, tenor: 6, interestRate: 5, purpose: null },
      providerKeySealed: sealer.for('client-secrets').seal('test_sk_sandbox'),
      widgetUrl: 'http://127.0.0.1:9/widget',
      linkWindowStart: now,
      linkingLocked: false,
      readyAnnounced: false,
      firstLinkedAt: now,
      accounts: [
        {
          accountId: randomUUID(),
          providerAccountId: `mono-${randomUUID()}`,
          institution: 'GTBank',
          accountNumber: '0123456785',
          holderName,
          enrichmentStatus: 'READY',
          linkedAt: now,
          enrichedAt: now,
          monthlyFlows: [],
        },
      ],
      analysis: null,
      decision: null,
      review: null,
      handled: [],
      createdAt: now,
      updatedAt: now,
      outbox: [],
      outboxPending: false,
    });

    await seesIdentity(clientId, applicationId, applicationId, who);

    expect(await send({ type: 'FinalizeLinking', clientId, applicationId })).toMatchObject({
      ok: true,
      result: { status: 'LINKED' },
    });
    const doc = await stored(applicationId);
    expect(readableIn(doc, { ...who, holderName })).toEqual([]);
    expect(sealer.open(doc!.accounts[0].holderName)).toBe(holderName);
    expect(sealer.open(doc!.applicant.phone)).toBe(who.phone);

    expect(await send({ type: 'AnalyzeApplication', clientId, applicationId })).toMatchObject({
      ok: true,
      result: { status: 'PROCESSING' },
    });
    const requested = await waitFor(
      () =>
        facts.find(
          (f): f is Extract<ApplicationFact, { type: 'AnalysisRequested' }> =>
            f.applicationId === applicationId && f.type === 'AnalysisRequested',
        ),
      { what: 'AnalysisRequested' },
    );
    expect([requested.applicant.firstName, requested.applicant.lastName].map((v) => sealer.open(v))).toEqual([
      who.firstName,
      who.lastName,
    ]);
    const after = await send({ type: 'GetApplication', clientId, applicationId });
    expect(after.ok && after.result.applicant).toEqual({
      firstName: who.firstName,
      lastName: who.lastName,
      email: who.email,
    });
  });
});
