import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import {
  Topics,
  replyTopicFor,
  type ApplicationCommand,
  type CommandReply,
  type PublicEventRecord,
} from '@loan/contracts';
import {
  configShape as applicationsConfigShape,
  createApplicationsService,
  type ApplicationsConfig,
} from '@loan/applications';
import { createMonoClient } from '@loan/provider';
import { createLogger, createServiceRuntime, type ServiceRuntime } from '@loan/runtime';
import { createSandbox, loadConfig as loadSandboxConfig, type Sandbox } from '@loan/sandbox';
import { testConfig, uniqueName, waitFor } from '@testing/helpers';
import { accountEnriched } from '@testing/stack';
import {
  type Driver,
  type RunningJanitor,
  newStage,
  shiftableClock,
  startDriver,
  startJanitor,
} from './__fixtures__/harness';

/**
 * The whole abandonment chain of spec section 3: the real applications service (with the
 * sandbox provider behind it) publishes the facts, the janitor keeps and fires the deadlines,
 * the applications service abandons. One clock drives both services.
 */
describe('abandonment: janitor and applications service together', () => {
  const stage = newStage();
  const applicationsDb = uniqueName('janitor_chain_applications').replace(/-/g, '_');
  const clock = shiftableClock();
  const replyTopic = replyTopicFor(uniqueName('janitor-chain'));
  const replies = new Map<string, CommandReply>();
  const events: PublicEventRecord[] = [];
  let sandbox: Sandbox;
  let sandboxUrl: string;
  let applicationsRuntime: ServiceRuntime;
  let applications: ReturnType<typeof createApplicationsService>;
  let janitor: RunningJanitor;
  let driver: Driver;

  beforeAll(async () => {
    sandbox = createSandbox(
      loadSandboxConfig({
        SANDBOX_PORT: '0',
        PROVIDER_WEBHOOK_URL: 'http://127.0.0.1:9/unused',
        SANDBOX_LOG_LEVEL: 'silent',
      }),
      { logger: createLogger('sandbox', 'silent') },
    );
    sandboxUrl = (await sandbox.start()).url;
    janitor = await startJanitor(stage, { clock });
    const config = testConfig<ApplicationsConfig>(
      'applications',
      { KAFKA_TOPIC_NAMESPACE: stage.namespace, MONGO_DB: applicationsDb, PROVIDER_BASE_URL: sandboxUrl },
      applicationsConfigShape,
    );
    applicationsRuntime = await createServiceRuntime(config);
    const provider = createMonoClient({ baseUrl: sandboxUrl, logger: applicationsRuntime.logger, timeoutMs: 5_000 });
    applications = createApplicationsService({ runtime: applicationsRuntime, config, provider, clock });
    await applications.start();
    driver = await startDriver(stage);
    await driver.bus.ensureTopics([replyTopic]);
    await driver.bus.consume({
      groupId: uniqueName('gateway'),
      topics: [replyTopic],
      handle: async (m) => void replies.set((m.value as CommandReply).commandId, m.value as CommandReply),
    });
    await driver.bus.consume({
      groupId: uniqueName('notifier'),
      topics: [Topics.events],
      handle: async (m) => void events.push(m.value as PublicEventRecord),
    });
  });

  afterAll(async () => {
    await driver?.stop();
    await applications?.stop();
    await janitor?.stop();
    await sandbox?.stop();
    for (const dbName of [stage.database, applicationsDb]) {
      const db = await mongoose
        .createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/', { dbName })
        .asPromise();
      await db.dropDatabase();
      await db.close();
    }
  });

  /** Sends a command as the gateway does and waits for its reply. */
  async function send(
    command: Record<string, unknown> & { type: ApplicationCommand['type'] },
  ): Promise<Record<string, unknown>> {
    const commandId = randomUUID();
    const full = {
      commandId,
      replyTo: replyTopic,
      clientId: 'client-chain',
      correlationId: randomUUID(),
      issuedAt: clock.now().toISOString(),
      ...command,
    } as ApplicationCommand;
    const key =
      full.type === 'InitiateApplication'
        ? full.request.idempotencyKey
        : (full as { applicationId: string }).applicationId;
    await driver.bus.publish(Topics.applicationCommands, [{ key, value: full }]);
    const reply = await waitFor(() => replies.get(commandId), { what: `the reply to ${full.type}` });
    if (!reply.ok) throw new Error(`${full.type} refused: ${reply.code} ${reply.message}`);
    // Results travel sealed (they name the applicant), as the gateway reads them.
    return reply.sealedResult
      ? JSON.parse(applicationsRuntime.sealer.for('command-replies').open(reply.sealedResult))
      : reply.result;
  }

  const initiate = (idempotencyKey: string) =>
    send({
      type: 'InitiateApplication',
      providerKey: applicationsRuntime.sealer.for('client-secrets').seal('test_sk_sandbox'),
      request: {
        firstName: 'Adaeze',
        lastName: 'Okafor',
        email: 'ada@example.com',
        amount: 500_000,
        tenor: 12,
        interestRate: 5,
        idempotencyKey,
      },
    }) as Promise<{ applicationId: string; widgetUrl: string; resumed: boolean }>;

  const statusOf = async (applicationId: string) => (await send({ type: 'GetApplication', applicationId })).status;

  const armedOf = async (applicationId: string, kind: string) =>
    (await janitor.service.deadlines.listByApplication(applicationId)).find(
      (d) => d.kind === kind && d.status === 'ARMED',
    );

  /** The applicant links an account in the sandbox; the provider's webhook, as the gateway passes it on. */
  async function linkThroughProvider(applicationId: string, widgetUrl: string) {
    const linked = await fetch(`${sandboxUrl}/sandbox/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetUrl }),
    }).then((r) => r.json() as Promise<{ providerAccountId: string }>);
    await driver.bus.publish(Topics.providerCallbacks, [
      {
        key: linked.providerAccountId,
        value: {
          callbackId: randomUUID(),
          kind: 'account_connected',
          providerEvent: 'mono.events.account_connected',
          providerAccountId: linked.providerAccountId,
          ref: applicationId,
          receivedAt: clock.now().toISOString(),
          payload: { id: linked.providerAccountId, meta: { ref: applicationId } },
        },
      },
    ]);
  }

  const abandonments = (applicationId: string) =>
    events
      .filter((e) => e.applicationId === applicationId && e.event === 'application.abandoned')
      .map((e) => (e.data as { reason: string }).reason);

  it('when no account is linked for 24 hours, then the janitor fires no_link and the application is abandoned with reason no_link; a resume starts a new 24 hours', async () => {
    const key = uniqueName('key');
    const { applicationId } = await initiate(key);
    const noLink = await waitFor(() => armedOf(applicationId, 'no_link'), { what: 'no_link armed' });

    clock.setTo(new Date(noLink.dueAt.getTime() + 1_000));
    await waitFor(() => abandonments(applicationId).includes('no_link'), { what: 'application.abandoned' });
    expect(await statusOf(applicationId)).toBe('ABANDONED');
    expect(driver.deadlinesOf(applicationId)).toEqual([
      expect.objectContaining({ kind: 'no_link', since: noLink.since }),
    ]);

    const resumed = await initiate(key);
    expect(resumed).toMatchObject({ applicationId, resumed: true });
    const again = await waitFor(() => armedOf(applicationId, 'no_link'), { what: 'no_link armed from the resume' });
    expect(again.since > noLink.since).toBe(true);
    clock.setTo(new Date(again.dueAt.getTime() + 1_000));
    await waitFor(() => driver.deadlinesOf(applicationId).length === 2, { what: 'the second no_link' });
    await waitFor(async () => (await statusOf(applicationId)) === 'ABANDONED', { what: 'abandoned again' });
  });

  it('when an account is linked but analyze is never called, then no_link never fires and after 7 days the application is abandoned with reason no_analyze', async () => {
    const { applicationId, widgetUrl } = await initiate(uniqueName('key'));
    const noLink = await waitFor(() => armedOf(applicationId, 'no_link'), { what: 'no_link armed' });
    await linkThroughProvider(applicationId, widgetUrl);
    const noAnalyze = await waitFor(() => armedOf(applicationId, 'no_analyze'), { what: 'no_analyze armed' });
    expect((await janitor.service.deadlines.get(noLink.deadlineId))?.status).toBe('CANCELLED');
    expect(await statusOf(applicationId)).toBe('LINKED');

    clock.setTo(new Date(noAnalyze.dueAt.getTime() + 1_000));
    await waitFor(() => abandonments(applicationId).includes('no_analyze'), { what: 'application.abandoned' });
    expect(await statusOf(applicationId)).toBe('ABANDONED');
    expect(abandonments(applicationId).every((reason) => reason === 'no_analyze')).toBe(true);
    expect(driver.deadlinesOf(applicationId).filter((d) => d.kind !== 'enrichment_timeout')).toEqual([
      expect.objectContaining({ kind: 'no_analyze', since: noAnalyze.since }),
    ]);
  });

  it('when an analysis gets no outcome (no scoring service answers), then the janitor fires analysis_timeout and the application FAILS with that reason', async () => {
    const { applicationId, widgetUrl } = await initiate(uniqueName('key'));
    await linkThroughProvider(applicationId, widgetUrl);
    const linked = await waitFor(
      async () => {
        const view = await send({ type: 'GetApplication', applicationId });
        return view.status === 'LINKED' ? (view as { applicantId: string; accounts: { accountId: string }[] }) : null;
      },
      { what: 'LINKED' },
    );
    await send({ type: 'FinalizeLinking', applicationId });
    const enriched = accountEnriched({
      clientId: 'client-chain',
      applicationId,
      applicantId: linked.applicantId,
      accountId: linked.accounts[0]!.accountId,
    });
    await driver.bus.publish(Topics.enrichmentResults, [
      { key: applicationId, value: { ...enriched, at: clock.now().toISOString() } },
    ]);
    await waitFor(
      () => events.some((e) => e.applicationId === applicationId && e.event === 'application.ready_for_analysis'),
      { what: 'ready_for_analysis' },
    );
    await send({ type: 'AnalyzeApplication', applicationId });
    const timeout = await waitFor(() => armedOf(applicationId, 'analysis_timeout'), { what: 'analysis_timeout armed' });
    expect(await statusOf(applicationId)).toBe('PROCESSING');

    clock.setTo(new Date(timeout.dueAt.getTime() + 1_000));
    const failed = await waitFor(
      () => events.find((e) => e.applicationId === applicationId && e.event === 'application.failed'),
      { what: 'application.failed' },
    );
    expect(failed.data).toMatchObject({ applicationId, status: 'FAILED', reason: 'analysis_timeout' });
    expect(await statusOf(applicationId)).toBe('FAILED');
  });
});
