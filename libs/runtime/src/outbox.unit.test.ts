import { randomUUID } from 'node:crypto';
import { Topics } from '@loan/contracts';
import { FACT_TYPE_HEADER } from '@loan/contracts';
import { ROOT_CONTEXT, TraceFlags, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
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
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => context.disable());

  const inTrace = <T>(traceId: string, work: () => Promise<T>): Promise<T> =>
    context.with(
      trace.setSpan(
        ROOT_CONTEXT,
        trace.wrapSpanContext({ traceId, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED }),
      ),
      work,
    );

  it.each([0, 5])(
    'when several applications flush at once (clear delay %i ms), then the one bulk write that empties their outboxes runs in none of their traces',
    async (clearDelayMs) => {
      const activeAtWrite: (string | undefined)[] = [];
      const model = {
        collection: {
          name: 'applications',
          bulkWrite: (ops: unknown[]) => {
            activeAtWrite.push(trace.getActiveSpan()?.spanContext().traceId);
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
      const at = new Date('2026-11-24T10:00:00.000Z');
      const entry = (applicationId: string) =>
        toOutboxEntries(
          { clientId: 'client-1', applicationId },
          [{ kind: 'fact', topic: Topics.applicationFacts, fact: { type: 'LinkingFinalized' } }],
          at,
        )[0]!;
      const traces = ['0af7651916cd43dd8448eb211c80319c', '1af7651916cd43dd8448eb211c80319c'];
      await Promise.all(
        traces.map((traceId, i) => inTrace(traceId, () => relay.flush(`app-${i}`, [entry(`app-${i}`)]))),
      );
      await waitFor(() => activeAtWrite.length > 0, { what: 'the outboxes emptied' });
      await relay.stop();
      expect(activeAtWrite).toEqual([undefined]);
    },
  );
});
