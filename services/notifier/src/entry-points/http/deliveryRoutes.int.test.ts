import { randomUUID } from 'node:crypto';
import { buildEvent } from '@loan/contracts';
import express, { type RequestHandler } from 'express';
import type { mongo } from 'mongoose';
import { createLogger, listen } from '@loan/runtime';
import { waitFor } from '@testing/helpers';
import { deliveryRoutes as gatewayDeliveryRoutes } from '../../../../gateway/src/entry-points/http/deliveryRoutes';
import { correlation, errorHandler } from '../../../../gateway/src/entry-points/http/support';
import {
  createPublisher,
  startNotifier,
  startReceiver,
  stopAndDrop,
  suiteSettings,
  type Publisher,
  type Receiver,
  type StartedNotifier,
} from '../../__tests__/harness';
import type { DeliveryView } from '../../domain/view';

type Page = { data: DeliveryView[]; nextCursor: string | null };

/** The gateway's side, as it will be mounted: a stand-in authenticator whose API key is the client id. */
async function startGateway(notifierUrl: string) {
  const app = express();
  app.use(correlation());
  app.use(express.json());
  const authenticate: RequestHandler = (req, res, next) => {
    const key = req.header('x-api-key');
    if (!key) {
      res.status(401).json({ statusCode: 401, message: 'Missing x-api-key header', error: 'Unauthorized' });
      return;
    }
    res.locals.client = { clientId: key };
    next();
  };
  const limit = () => ((_req, _res, next) => next()) as RequestHandler;
  app.use(
    '/api/webhooks',
    gatewayDeliveryRoutes({ notifierUrl, internalToken: 'local-internal-token-change-me', authenticate, limit }),
  );
  app.use(errorHandler(createLogger('gateway-test', 'silent')));
  return listen(app, '127.0.0.1', 0);
}

describe('the delivery log API, through the gateway, over the real broker and database', () => {
  let notifier: StartedNotifier;
  let publisher: Publisher;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const receivers: Receiver[] = [];

  const api = async (clientId: string | null, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gateway.url}/api/webhooks${path}`, {
      method,
      headers: {
        ...(clientId ? { 'x-api-key': clientId } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const view = async (clientId: string, eventId: string) => {
    const { body } = await api(clientId, 'GET', `/deliveries?eventId=${eventId}`);
    return (body as unknown as Page).data[0];
  };

  const until = (clientId: string, eventId: string, check: (d: DeliveryView) => boolean, what: string) =>
    waitFor(
      async () => {
        const d = await view(clientId, eventId);
        return d && check(d) ? d : undefined;
      },
      { what, timeoutMs: 30_000 },
    );

  /**
   * A client account, published and then waited for until the notifier has it: with one retry
   * 200 ms apart in this suite, an event that came before its client's account would fail as
   * unknown_client.
   */
  async function knownClient(webhookUrl: string) {
    const created = await publisher.client({ webhookUrl });
    const endpoints = notifier.runtime.db.collection('client_endpoints');
    await waitFor(() => endpoints.findOne({ _id: created.clientId as never }), {
      what: `client ${created.clientId} known`,
    });
    return created;
  }

  async function failingClient() {
    const hook = await startReceiver(() => 500);
    receivers.push(hook);
    const { clientId } = await knownClient(hook.url);
    return { hook, clientId };
  }

  beforeAll(async () => {
    notifier = await startNotifier(suiteSettings({ WEBHOOK_MAX_RETRIES: '1' }));
    publisher = await createPublisher(notifier.config);
    gateway = await startGateway(notifier.url);
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await gateway?.close();
    await publisher?.close();
    await stopAndDrop([notifier]);
  });

  it('when a request to the notifier names no client, then it answers 401 in the error shape', async () => {
    const res = await fetch(`${notifier.url}/internal/deliveries`, {
      headers: { 'x-internal-token': 'local-internal-token-change-me' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ statusCode: 401, message: 'Missing x-client-id header', error: 'Unauthorized' });
  });

  it('when anyone but the gateway calls the internal API, naming any client it likes, then 401 and nothing of that client', async () => {
    for (const token of [undefined, 'a-guess-of-the-token-value', 'local-internal-token-change']) {
      const res = await fetch(`${notifier.url}/internal/deliveries`, {
        headers: { 'x-client-id': 'client-x', ...(token ? { 'x-internal-token': token } : {}) },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        statusCode: 401,
        message: 'Missing or invalid x-internal-token header',
        error: 'Unauthorized',
      });
    }
  });

  it('when a FAILED delivery is redelivered after the receiver is fixed, then the same event id and body are sent once more and it is DELIVERED', async () => {
    const { hook, clientId } = await failingClient();
    const record = publisher.event({ clientId });
    await publisher.publish(record);
    const failed = await until(clientId, record.id, (d) => d.status === 'FAILED', 'FAILED after 1 + 1 attempts');
    expect(failed.attempts).toHaveLength(2);
    expect(failed.attempts[0]).toEqual({
      at: expect.any(String),
      statusCode: 500,
      error: null,
      durationMs: expect.any(Number),
      manual: false,
    });
    expect(failed.nextAttemptAt).toBeNull();

    hook.setBehaviour(() => 200);
    const redelivery = await api(clientId, 'POST', `/deliveries/${failed.id}/redeliver`);
    expect(redelivery.status).toBe(202);
    expect(redelivery.body).toMatchObject({ id: failed.id, status: 'PENDING', nextAttemptAt: expect.any(String) });

    const delivered = await until(clientId, record.id, (d) => d.status === 'DELIVERED', 'DELIVERED on redelivery');
    expect(delivered.attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    const sent = hook.forEvent(record.id);
    expect(sent).toHaveLength(3);
    expect(sent[2]!.rawBody.equals(sent[0]!.rawBody)).toBe(true);
    expect(sent[2]!.headers['x-signature']).toBe(sent[0]!.headers['x-signature']);

    // A DELIVERED one can be sent again too, on request.
    expect((await api(clientId, 'POST', `/deliveries/${failed.id}/redeliver`)).status).toBe(202);
    await waitFor(() => hook.forEvent(record.id).length === 4, { what: 'the second redelivery' });
    expect(hook.forEvent(record.id)[3]!.rawBody.equals(sent[0]!.rawBody)).toBe(true);
    await until(clientId, record.id, (d) => d.status === 'DELIVERED' && d.attempts.length === 4, 'DELIVERED again');
  });

  it('when a DELIVERED event is redelivered and the receiver now fails, then it stays DELIVERED and the log shows the success and the redelivery as an attempt of its own', async () => {
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const { clientId } = await knownClient(hook.url);
    const record = publisher.event({ clientId });
    await publisher.publish(record);
    const delivered = await until(clientId, record.id, (d) => d.status === 'DELIVERED', 'DELIVERED at once');
    expect(delivered.attempts.map((a) => [a.statusCode, a.manual])).toEqual([[200, false]]);

    hook.setBehaviour(() => 500);
    expect((await api(clientId, 'POST', `/deliveries/${delivered.id}/redeliver`)).status).toBe(202);
    const after = await until(
      clientId,
      record.id,
      (d) => d.status !== 'PENDING' && d.attempts.length === 2,
      'the redelivery settled',
    );
    expect(after.status).toBe('DELIVERED');
    expect(after.reason).toBeNull();
    expect(after.deliveredAt).toBe(delivered.deliveredAt);
    expect(after.attempts.map((a) => [a.statusCode, a.manual])).toEqual([
      [200, false],
      [500, true],
    ]);
  });

  /**
   * The FAILED deliveries the database sends the notifier (replies to its `find`s of FAILED
   * deliveries, which only a replay asks for) until `stop`.
   */
  function deliveriesReadDuring() {
    const client = notifier.runtime.db.getClient();
    const finds = new Set<number>();
    const docs: Record<string, unknown>[] = [];
    const started = (e: mongo.CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'deliveries' && e.command.filter?.status === 'FAILED')
        finds.add(e.requestId);
    };
    const succeeded = (e: mongo.CommandSucceededEvent) => {
      if (finds.has(e.requestId))
        docs.push(...((e.reply as { cursor: { firstBatch: Record<string, unknown>[] } }).cursor.firstBatch ?? []));
    };
    client.on('commandStarted', started);
    client.on('commandSucceeded', succeeded);
    return {
      stop() {
        client.off('commandStarted', started);
        client.off('commandSucceeded', succeeded);
        return docs;
      },
    };
  }

  it('when FAILED deliveries are replayed since a time, then they are re-queued, counted and delivered', async () => {
    const { hook, clientId } = await failingClient();
    const since = new Date().toISOString();
    const failedOnes = [
      publisher.event({ clientId }),
      publisher.event({ clientId }),
      publisher.event({ clientId, event: 'application.abandoned' }),
    ];
    await publisher.publish(...failedOnes);
    for (const r of failedOnes) await until(clientId, r.id, (d) => d.status === 'FAILED', `${r.id} FAILED`);
    hook.setBehaviour(() => 200);

    const onlyAbandoned = await api(clientId, 'POST', '/deliveries/replay', { since, event: 'application.abandoned' });
    expect(onlyAbandoned).toEqual({ status: 202, body: { count: 1, more: false } });
    await until(clientId, failedOnes[2]!.id, (d) => d.status === 'DELIVERED', 'the replayed abandoned event');

    // One page at a time: the oldest first, `more` until none is left; the database sends the
    // deliveries without their bodies (a replay changes only their state).
    const read = deliveriesReadDuring();
    const first = await api(clientId, 'POST', '/deliveries/replay', { since, limit: 1 });
    const docs = read.stop();
    expect(first).toEqual({ status: 202, body: { count: 1, more: true } });
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.filter((d) => 'body' in d)).toEqual([]);
    const rest = await api(clientId, 'POST', '/deliveries/replay', { since, limit: 1 });
    expect(rest).toEqual({ status: 202, body: { count: 1, more: false } });
    for (const r of failedOnes) await until(clientId, r.id, (d) => d.status === 'DELIVERED', `${r.id} DELIVERED`);
    expect((await api(clientId, 'POST', '/deliveries/replay', { since })).body).toEqual({ count: 0, more: false });
    expect((await api(clientId, 'POST', '/deliveries/replay', { since, limit: 501 })).status).toBe(400);
  });

  it('when an application is abandoned without analysis, then the account numbers in its delivered webhook bodies are cut to four digits and the log keeps the rest', async () => {
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const { clientId } = await knownClient(hook.url);
    const ids = { applicationId: randomUUID(), applicantId: randomUUID() };
    const linked = buildEvent({
      id: randomUUID(),
      event: 'account.linked',
      clientId,
      applicationId: ids.applicationId,
      data: { ...ids, accountId: randomUUID(), institution: 'GTBank', accountNumber: '0123456785' },
      at: new Date(),
    });
    await publisher.publish(linked);
    const delivered = await until(clientId, linked.id, (d) => d.status === 'DELIVERED', 'account.linked delivered');
    const abandoned = buildEvent({
      id: randomUUID(),
      event: 'application.abandoned',
      clientId,
      applicationId: ids.applicationId,
      data: { ...ids, reason: 'no_analyze', message: 'Analyze was not called within 7 days' },
      at: new Date(),
    });
    await publisher.publish(abandoned);
    const deliveries = notifier.runtime.db.collection('deliveries');
    const stored = await waitFor(
      async () => {
        const doc = await deliveries.findOne({ eventId: linked.id });
        return doc && !String(doc.body).includes('0123456785') ? doc : undefined;
      },
      { what: 'the body scrubbed' },
    );
    expect(JSON.parse(String(stored.body)).data.accountNumber).toBe('******6785');
    expect(stored).toMatchObject({ status: 'DELIVERED', event: 'account.linked', eventId: linked.id });
    expect((await view(clientId, linked.id))?.attempts).toEqual(delivered.attempts);
  });

  it('when the log is listed, then the caller sees only its own deliveries, newest first, page by page, filtered as asked', async () => {
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const { clientId } = await knownClient(hook.url);
    const other = await knownClient(hook.url);
    const applicationId = randomUUID();
    const mine = [0, 1, 2].map(() => publisher.event({ clientId, applicationId }));
    const theirs = publisher.event({ clientId: other.clientId });
    await publisher.publish(...mine, theirs);
    for (const r of mine) await until(clientId, r.id, (d) => d.status === 'DELIVERED', `${r.id} DELIVERED`);

    const first = await api(clientId, 'GET', `/deliveries?limit=2&applicationId=${applicationId}`);
    const page1 = first.body as unknown as Page;
    expect(first.status).toBe(200);
    expect(page1.data).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const second = (
      await api(clientId, 'GET', `/deliveries?limit=2&applicationId=${applicationId}&cursor=${page1.nextCursor}`)
    ).body as unknown as Page;
    expect(second.data).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const listed = [...page1.data, ...second.data];
    expect(new Set(listed.map((d) => d.eventId))).toEqual(new Set(mine.map((r) => r.id)));
    const created = listed.map((d) => d.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(listed[0]).toMatchObject({ status: 'DELIVERED', event: 'application.failed', applicationId, reason: null });

    const delivered = (await api(clientId, 'GET', '/deliveries?status=DELIVERED&event=application.failed'))
      .body as unknown as Page;
    expect(delivered.data.every((d) => d.status === 'DELIVERED' && d.event === 'application.failed')).toBe(true);
    expect(((await api(clientId, 'GET', '/deliveries?status=FAILED')).body as unknown as Page).data).toEqual([]);

    const theirsView = await until(
      other.clientId,
      theirs.id,
      (d) => d.status === 'DELIVERED',
      'the other client delivery',
    );
    expect((await api(clientId, 'GET', `/deliveries/${theirsView.id}`)).status).toBe(404);
    expect((await api(clientId, 'POST', `/deliveries/${theirsView.id}/redeliver`)).status).toBe(404);
    const one = await api(other.clientId, 'GET', `/deliveries/${theirsView.id}`);
    expect(one).toMatchObject({ status: 200, body: { id: theirsView.id, eventId: theirs.id } });
  });

  it('when the query or body is not valid, then the answer is 400 in the error shape', async () => {
    const bad = await api('client-x', 'GET', '/deliveries?status=LOST&limit=500');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      statusCode: 400,
      message: expect.stringMatching(/status must be one of/),
      error: 'Bad Request',
    });
    expect((await api('client-x', 'GET', '/deliveries?cursor=nonsense')).status).toBe(400);
    const replay = await api('client-x', 'POST', '/deliveries/replay', { since: 'yesterday' });
    expect(replay).toEqual({
      status: 400,
      body: { statusCode: 400, message: 'since is required and must be an ISO 8601 date-time', error: 'Bad Request' },
    });
    expect((await api(null, 'GET', '/deliveries')).status).toBe(401);
  });

  it('when the notifier cannot be reached, then the gateway answers 500 in the error shape', async () => {
    const orphan = await startGateway('http://127.0.0.1:9');
    try {
      const res = await fetch(`${orphan.url}/api/webhooks/deliveries`, { headers: { 'x-api-key': 'client-x' } });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        statusCode: 500,
        message: 'The webhook delivery log is unavailable right now; retry the request',
        error: 'Internal Server Error',
      });
    } finally {
      await orphan.close();
    }
  });
});
