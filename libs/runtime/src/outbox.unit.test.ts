import { randomUUID } from 'node:crypto';
import { Topics } from '@loan/contracts';
import { FACT_TYPE_HEADER } from '@loan/contracts';
import { SPAN_IDS, TRACE_IDS, recordTraces } from './__tests__/recordedTraces';
import { waitFor } from '@testing/helpers';
import { createBulkLane } from './bulkLane';
import { createLogger } from './logger';
import { createOutboxRelay, toOutboxEntries } from './outbox';

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

describe('the removal of published entries', () => {
  const { exporter, inTrace, activeTraceId } = recordTraces();
  const traceIds = TRACE_IDS;
  const spanIds = SPAN_IDS.slice(0, 2);

  function relayOf(clearDelayMs: number) {
    const activeAtWrite: (string | undefined)[] = [];
    const model = {
      collection: {
        name: 'applications',
        bulkWrite: (ops: unknown[]) => {
          activeAtWrite.push(activeTraceId());
          return Promise.resolve({ matchedCount: ops.length });
        },
      },
    };
    const relay = createOutboxRelay({
      bus: { publishAll: () => Promise.resolve() },
      model: model as never,
      logger: createLogger('test', 'silent'),
      clearDelayMs,
      bulkLane: createBulkLane(),
    });
    return { relay, activeAtWrite };
  }
  const at = new Date('2026-11-24T10:00:00.000Z');
  const entry = (applicationId: string) =>
    toOutboxEntries(
      { clientId: 'client-1', applicationId },
      [{ kind: 'fact', topic: Topics.applicationFacts, fact: { type: 'LinkingFinalized' } }],
      at,
    )[0]!;

  it('when several applications flush at once, then the one bulk write that empties their outboxes is in a span of a trace of its own, linked to each flush', async () => {
    const { relay, activeAtWrite } = relayOf(0);
    await Promise.all([0, 1].map((i) => inTrace(i, () => relay.flush(`app-${i}`, [entry(`app-${i}`)]))));
    await relay.stop();
    const [batch, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(batch).toMatchObject({ name: 'clear outbox applications', attributes: { 'loan.batch_size': 2 } });
    expect(batch!.parentSpanContext).toBeUndefined();
    expect(batch!.links.map((l) => l.context.spanId).sort()).toEqual(spanIds);
    expect(activeAtWrite).toEqual([batch!.spanContext().traceId]);
  });

  it('when one application flushes alone, then the write that empties its outbox is in its trace', async () => {
    const { relay, activeAtWrite } = relayOf(0);
    await inTrace(1, () => relay.flush('app-1', [entry('app-1')]));
    await relay.stop();
    expect(activeAtWrite).toEqual([traceIds[1]]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('when the removal waits (a clear delay), then it is in none of the traces that published', async () => {
    const { relay, activeAtWrite } = relayOf(5);
    await Promise.all([0, 1].map((i) => inTrace(i, () => relay.flush(`app-${i}`, [entry(`app-${i}`)]))));
    await waitFor(() => activeAtWrite.length > 0, { what: 'the outboxes emptied' });
    await relay.stop();
    expect(activeAtWrite).toEqual([undefined]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
