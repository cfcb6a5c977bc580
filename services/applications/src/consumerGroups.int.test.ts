import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Topics, type ApplicationCommand, type ProviderCallback } from '@loan/contracts';
import { commandSender } from '@testing/commands';
import { waitFor } from '@testing/helpers';
import { consumedToEnd, startApplications, suiteNamespace, testBus, testSealer, type Running } from '@testing/stack';
import { ConsumerGroups } from './entry-points/consumers';

/**
 * The service's two consumer groups, through its own entry points against the real broker,
 * registry and database: commands are answered while a fact is being handled, and a release
 * that read commands in the facts' group hands its position over to the commands' group.
 */
const sealer = testSealer();

/**
 * The account-linking provider as far as these tests need it: a hosted link for every initiate,
 * and account details that wait until the test releases them.
 */
async function holdingProvider() {
  const held: ServerResponse[] = [];
  const ok = (data: unknown) => JSON.stringify({ status: 'successful', data });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v2/accounts/initiate') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(ok({ mono_url: 'https://link.example/widget' }));
        return;
      }
      held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Account lookups waiting for an answer. */
    waiting: () => held.filter((res) => !res.writableEnded && !res.destroyed).length,
    /** Answers every waiting lookup with an account. */
    release() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(ok({ account: { id: 'acc-held', name: 'ADA OKAFOR', account_number: '0123456785', balance: 100 } }));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the commands consumer group', () => {
  const ns = suiteNamespace();
  const bus = testBus(ns, 'applications-groups-test');
  let provider: Awaited<ReturnType<typeof holdingProvider>>;
  let applications: Running;
  let lender: Awaited<ReturnType<typeof commandSender>>;

  beforeAll(async () => {
    provider = await holdingProvider();
    // Longer than the test holds the lookup: the fact's handler waits on it all along.
    applications = await startApplications(ns, { PROVIDER_BASE_URL: provider.url, PROVIDER_TIMEOUT: '2m' });
    await bus.connect();
    lender = await commandSender(bus, 'groups-test');
  });

  afterAll(async () => {
    provider?.release();
    await bus.disconnect();
    await applications?.stop();
    await provider?.close();
  });

  it('when the handler of a fact waits on the provider, then a command is still answered meanwhile', async () => {
    const clientId = `c-${randomUUID()}`;
    const opened = await lender.send({
      type: 'InitiateApplication',
      clientId,
      request: { amount: 300_000, tenor: 6, interestRate: 5, idempotencyKey: `groups-${randomUUID()}` },
      applicant: sealer.seal(
        JSON.stringify({ firstName: 'Ada', lastName: 'Okafor', email: 'ada@example.ng', bvn: '22200000009' }),
      ),
      providerKey: sealer.for('client-secrets').seal('test_sk_held'),
    });
    if (!opened.ok) throw new Error(opened.message);
    const applicationId = opened.result.applicationId as string;

    const callback: ProviderCallback = {
      callbackId: randomUUID(),
      kind: 'account_connected',
      providerEvent: 'mono.events.account_connected',
      providerAccountId: 'acc-held',
      ref: applicationId,
      clientId,
      receivedAt: new Date().toISOString(),
      payload: {},
    };
    await bus.publish(Topics.providerCallbacks, [{ key: callback.providerAccountId, value: callback }]);
    await waitFor(() => provider.waiting() === 1, { what: 'the fact handler to ask the provider for the account' });

    // Within the fact consumer's session timeout (15 s): before it, one consumer of both would
    // still be handling the fact, and would not have fetched the command.
    const status = await lender.send({ type: 'GetApplication', clientId, applicationId }, 10_000);
    expect(status).toMatchObject({ ok: true, result: { applicationId, status: 'PENDING_LINKING' } });
    expect(provider.waiting()).toBe(1);

    provider.release();
    await consumedToEnd(bus, ConsumerGroups.facts, [Topics.providerCallbacks]);
  });

  it('when the service stops, then both of its groups are left', async () => {
    const groups = [ConsumerGroups.commands, ConsumerGroups.facts];
    expect([...(await bus.groupMembers(groups)).values()]).toEqual([1, 1]);
    await applications.stop();
    expect([...(await bus.groupMembers(groups)).values()]).toEqual([0, 0]);
  });
});

describe('the hand-over from the group that read commands before', () => {
  const ns = suiteNamespace();
  const bus = testBus(ns, 'applications-handover-test');
  let applications: Running | undefined;

  afterAll(async () => {
    await bus.disconnect();
    await applications?.stop();
  });

  it('when the release before read commands in the facts’ group, then the commands’ group starts where it stopped and answers no earlier command again', async () => {
    await bus.connect();
    await bus.ensureTopics([Topics.applicationCommands]);
    const lender = await commandSender(bus, 'handover-test');
    const clientId = `c-${randomUUID()}`;
    const earlier: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      earlier.push(await lender.publish({ type: 'GetApplication', clientId, applicationId: randomUUID() }));
    }
    // The release before: every command read and committed in the group that read everything.
    const read = new Set<string>();
    await bus.consume({
      groupId: ConsumerGroups.facts,
      topics: [Topics.applicationCommands],
      handle: async (m) => void read.add((m.value as ApplicationCommand).commandId),
    });
    await waitFor(() => earlier.every((id) => read.has(id)), { what: 'the earlier commands read' });
    await bus.stopConsumer(ConsumerGroups.facts);

    applications = await startApplications(ns);
    const after = await lender.send({ type: 'GetApplication', clientId, applicationId: randomUUID() });
    expect(after).toMatchObject({ ok: false });

    // Every command before the last one is handled or passed over once the group is at the end,
    // and its reply out before its offset is committed.
    await consumedToEnd(bus, ConsumerGroups.commands, [Topics.applicationCommands]);
    await consumedToEnd(bus, lender.replyGroup, [lender.replyTo]);
    expect(earlier.filter((id) => lender.replies.has(id))).toEqual([]);
  });
});
