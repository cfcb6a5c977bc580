import { SPAN_IDS, TRACE_IDS, recordTraces } from './__tests__/recordedTraces';
import { createBulkLane } from './bulkLane';

const coalesce = <T, R>(write: (items: T[]) => Promise<(R | Error)[]>, maxBatch?: number, name?: string) =>
  createBulkLane().coalesce(write, { maxBatch, name });

/** A write that holds each batch until the test lets it go, recording the batches it was sent. */
function heldWrite() {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const write = (items: string[]) => {
    batches.push(items);
    return new Promise<(string | Error)[]>((resolve) =>
      pending.push(() => resolve(items.map((i) => (i.startsWith('bad') ? new Error(`refused ${i}`) : `ok ${i}`)))),
    );
  };
  const release = async () => {
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, write, release };
}

describe('coalescing writes into bulk commands', () => {
  it('when a write finds none under way, then it goes at once and alone', async () => {
    const { batches, write, release } = heldWrite();
    const send = coalesce(write);
    const done = send('a');
    expect(batches).toEqual([['a']]);
    await release();
    await expect(done).resolves.toBe('ok a');
  });

  it('when writes arrive while one is under way, then they go together once it ends, each answered with its own result', async () => {
    const { batches, write, release } = heldWrite();
    const send = coalesce(write);
    const first = send('a');
    const rest = ['b', 'c', 'd'].map((i) => send(i));
    expect(batches).toEqual([['a']]);
    await release();
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    await release();
    await expect(first).resolves.toBe('ok a');
    await expect(Promise.all(rest)).resolves.toEqual(['ok b', 'ok c', 'ok d']);
  });

  it('when one item of a batch is refused, then only its caller gets the error', async () => {
    const { write, release } = heldWrite();
    const send = coalesce(write);
    const first = send('a');
    const [good, bad] = [send('b'), send('bad-c')];
    const refused = expect(bad).rejects.toThrow('refused bad-c');
    await release();
    await release();
    await expect(first).resolves.toBe('ok a');
    await expect(good).resolves.toBe('ok b');
    await refused;
  });

  it('when the bulk write fails as a whole, then every caller of that batch gets the error and later writes still go', async () => {
    let fail = true;
    const send = coalesce(async (items: string[]) => {
      if (fail) throw new Error('connection lost');
      return items;
    });
    await expect(Promise.all([send('a'), send('b')])).rejects.toThrow('connection lost');
    fail = false;
    await expect(send('c')).resolves.toBe('c');
  });

  it('when more writes wait than a batch may hold, then they go in batches of at most that size', async () => {
    const { batches, write, release } = heldWrite();
    const send = coalesce(write, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((i) => send(i));
    await release();
    await release();
    await release();
    await Promise.all(all);
    expect(batches).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });
});

describe('the bulk lane of a service', () => {
  it('when bulk writes are run together, then each starts once the one before it ended, failed or not', async () => {
    const lane = createBulkLane();
    const log: string[] = [];
    const write =
      (name: string, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`end ${name}`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      };
    const results = [lane.run(write('a')), lane.run(write('b', true)), lane.run(write('c'))];
    await expect(results[0]).resolves.toBe('a');
    await expect(results[1]).rejects.toThrow('b failed');
    await expect(results[2]).resolves.toBe('c');
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('when a coalesced batch of several writes is ready while another bulk write runs, then it waits for it; a single write does not', async () => {
    const lane = createBulkLane();
    const batches: string[][] = [];
    const send = lane.coalesce(async (items: string[]) => {
      batches.push(items);
      return items;
    });
    let finish: () => void = () => undefined;
    const other = lane.run(() => new Promise<void>((resolve) => (finish = resolve)));

    await expect(send('alone')).resolves.toBe('alone');
    const first = send('a');
    const together = [send('b'), send('c')];
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['alone'], ['a']]);

    finish();
    await other;
    await expect(Promise.all(together)).resolves.toEqual(['b', 'c']);
    expect(batches).toEqual([['alone'], ['a'], ['b', 'c']]);
  });
});

describe('coalesced writes in traces', () => {
  const { exporter, inTrace, activeTraceId } = recordTraces();
  const spanIds = SPAN_IDS;
  const traceIds = TRACE_IDS;
  const recording = (write: (items: string[]) => Promise<(string | Error)[]>) => {
    const tracedAt: (string | undefined)[] = [];
    const traced = (items: string[]) => {
      tracedAt.push(activeTraceId());
      return write(items);
    };
    return { tracedAt, traced };
  };

  it('when a write goes alone, then it is in its own caller’s trace; when writes go together, then in a span of a trace of its own, linked to each caller’s span', async () => {
    const { batches, write, release } = heldWrite();
    const { tracedAt, traced } = recording(write);
    const send = coalesce(traced, 200, 'insert deliveries');
    const first = inTrace(0, () => send('a'));
    const together = [inTrace(1, () => send('b')), inTrace(2, () => send('c'))];
    await release();
    await release();
    await Promise.all([first, ...together]);
    const alone = inTrace(2, () => send('d'));
    await release();
    await alone;
    expect(batches).toEqual([['a'], ['b', 'c'], ['d']]);
    const [batch, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(batch).toMatchObject({ name: 'insert deliveries', attributes: { 'loan.batch_size': 2 } });
    expect(batch!.parentSpanContext).toBeUndefined();
    expect(batch!.links.map((l) => l.context.spanId)).toEqual([spanIds[1], spanIds[2]]);
    expect(tracedAt).toEqual([traceIds[0], batch!.spanContext().traceId, traceIds[2]]);
    expect(traceIds).not.toContain(batch!.spanContext().traceId);
  });

  it('when a write queued behind others goes alone, then it is in its own caller’s trace, not the first caller’s', async () => {
    const { batches, write, release } = heldWrite();
    const { tracedAt, traced } = recording(write);
    const send = coalesce(traced, 1);
    const done = [inTrace(0, () => send('a')), inTrace(1, () => send('b'))];
    await release();
    await release();
    await Promise.all(done);
    expect(batches).toEqual([['a'], ['b']]);
    expect(tracedAt).toEqual([traceIds[0], traceIds[1]]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('when writes outside any trace go together, then they are in no trace and no span is started for them', async () => {
    const { write, release } = heldWrite();
    const { tracedAt, traced } = recording(write);
    const send = coalesce(traced);
    const done = ['a', 'b', 'c'].map((i) => send(i));
    await release();
    await release();
    await Promise.all(done);
    expect(tracedAt).toEqual([undefined, undefined]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
